import * as z from 'zod';
import type { PriceStore } from '#ports/price-store';
import type { LatestPrice } from './aggregation.ts';
import { MissingSymbolsError } from './errors.ts';
import { symbolListParam } from './query-params.ts';

/** Spec 2.2. */
export const priceItemSchema = z.object({
  symbol: z.string(),
  price: z.number(),
  volume: z.number(),
});

export type PriceItem = z.infer<typeof priceItemSchema>;

/** Spec 4.4 response. */
export const latestPricesSchema = z.object({ items: z.array(priceItemSchema) });

/** The latest trade of a symbol as stored: the price item plus when and which trade it was. */
export interface SymbolPrice extends LatestPrice {
  readonly symbol: string;
}

export const latestPricesQuerySchema = z.object({ symbols: symbolListParam() });

export type LatestPricesQuery = z.output<typeof latestPricesQuerySchema>;

export function toPriceItem({ symbol, price, volume }: PriceItem): PriceItem {
  return { symbol, price, volume };
}

/** Spec 4.4: in the order of `symbols`; symbols with no recorded trade are omitted; 400 without symbols. */
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
