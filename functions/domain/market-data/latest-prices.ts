import { MissingSymbolsError } from '#domain/requests/errors';
import type { PriceStore } from './ports.ts';
import { type LatestPricesQuery, type PriceItem, toPriceItem } from './prices.ts';

/**
 * GET /prices/latest (docs/partner-guide.md#latest-prices): in the order of `symbols`; symbols with no
 * recorded trade are omitted; 400 without symbols.
 */
export async function getLatestPrices(
  query: LatestPricesQuery,
  prices: PriceStore,
): Promise<{ items: PriceItem[] }> {
  if (query.symbols === undefined) throw new MissingSymbolsError();
  const found = new Map((await prices.getMany(query.symbols)).map((latest) => [latest.symbol, latest]));
  return {
    items: query.symbols.flatMap((symbol) => {
      const latest = found.get(symbol);
      return latest ? [toPriceItem(latest)] : [];
    }),
  };
}
