import * as z from 'zod/mini';
import { symbolListParam } from '#domain/requests/query-params';
import type { LatestPrice } from './bars.ts';

/** A price item (docs/partner-guide.md#price-item). */
export const priceItemSchema = z.object({
  symbol: z.string(),
  price: z.number(),
  volume: z.number(),
});

export type PriceItem = z.infer<typeof priceItemSchema>;

/** The response of GET /prices/latest (docs/partner-guide.md#latest-prices). */
export const latestPricesSchema = z.object({ items: z.array(priceItemSchema) });

/** The latest trade of a symbol as stored: the price item plus when and which trade it was. */
export interface SymbolPrice extends LatestPrice {
  readonly symbol: string;
}

export const latestPricesQuerySchema = z.object({ symbols: symbolListParam({ required: true }) });

export type LatestPricesQuery = z.output<typeof latestPricesQuerySchema>;

export function toPriceItem({ symbol, price, volume }: PriceItem): PriceItem {
  return { symbol, price, volume };
}

/** Whether a commit moved the latest price: a new one, or any of its fields other than before. */
export function priceMoved(before: LatestPrice | undefined, after: LatestPrice | undefined): boolean {
  if (after === undefined) return false;
  return (
    before === undefined ||
    before.tradeId !== after.tradeId ||
    before.timestamp !== after.timestamp ||
    before.price !== after.price ||
    before.volume !== after.volume
  );
}
