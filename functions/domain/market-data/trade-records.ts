import * as z from 'zod';
import type { Trade } from './bars.ts';
import { normalizeSymbol } from './symbols.ts';

/**
 * The wire form of a trade on the trades stream (JSON, partition key = symbol): what the provider collector,
 * the simulator and `npm run replay` put, and what the ingest Lambda reads.
 */
export const tradeRecordSchema = z.object({
  symbol: z.string().min(1).max(32).transform(normalizeSymbol),
  price: z.number().positive().finite(),
  size: z.number().nonnegative().finite(),
  /** Unix milliseconds. */
  timestamp: z.number().int().positive(),
  tradeId: z.string().min(1).max(128),
});

export function encodeTradeRecord(trade: Trade): string {
  const { symbol, price, size, timestamp, tradeId } = trade;
  return JSON.stringify({ symbol, price, size, timestamp, tradeId });
}

/** A record's trade, or undefined for a record that is not one (a poison record: skipped, never retried). */
export function decodeTradeRecord(json: string): Trade | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  const parsed = tradeRecordSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
