import * as z from 'zod';
import { symbolListParam } from '#domain/requests/query-params';
import type { LatestPrice } from './bars.ts';

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
