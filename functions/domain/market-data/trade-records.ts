import * as z from 'zod/mini';
import type { Trade } from './bars.ts';
import { normalizeSymbol } from './symbols.ts';

/**
 * The wire form of trades on the trades stream (JSON, partition key = symbol): what the provider collector,
 * the simulator and `npm run replay` put, and what the ingest Lambda reads. A record holds one trade (an
 * object) or up to TRADES_PER_RECORD consecutive trades of one symbol (an array, in order): a record is
 * put, failed and retried whole, so a producer that sends at most one record per symbol per call keeps
 * each symbol's order across retries (functions/adapters/kinesis/trade-sink.ts).
 */
export const tradeRecordSchema = z.object({
  symbol: z.pipe(z.string().check(z.minLength(1), z.maxLength(32)), z.transform(normalizeSymbol)),
  price: z.number().check(z.positive()),
  size: z.number().check(z.nonnegative()),
  /** Unix milliseconds. */
  timestamp: z.int().check(z.positive()),
  tradeId: z.string().check(z.minLength(1), z.maxLength(128)),
  /** Counts in volume but sets no price, high or low (functions/domain/market-data/bars.ts). Absent: fully. */
  volumeOnly: z.optional(z.boolean()),
});

/** At most this many trades in one record (about 10 KB). */
export const TRADES_PER_RECORD = 100;

const wireTrade = ({ symbol, price, size, timestamp, tradeId, volumeOnly }: Trade) =>
  volumeOnly === true
    ? { symbol, price, size, timestamp, tradeId, volumeOnly }
    : { symbol, price, size, timestamp, tradeId };

export function encodeTradeRecord(trade: Trade): string {
  return JSON.stringify(wireTrade(trade));
}

export interface TradeRecord {
  readonly partitionKey: string;
  readonly data: string;
  /** How many trades the record holds. */
  readonly trades: number;
}

/**
 * The records for `trades`, in order: each run of consecutive trades of one symbol, up to TRADES_PER_RECORD,
 * becomes one record keyed by its symbol.
 */
export function encodeTradeRecords(trades: readonly Trade[]): TradeRecord[] {
  const records: TradeRecord[] = [];
  let run: Trade[] = [];
  const flush = () => {
    if (run.length === 0) return;
    const [first] = run as [Trade];
    records.push({
      partitionKey: first.symbol,
      data: run.length === 1 ? encodeTradeRecord(first) : JSON.stringify(run.map(wireTrade)),
      trades: run.length,
    });
    run = [];
  };
  for (const trade of trades) {
    if (run.length === TRADES_PER_RECORD || (run.length > 0 && run[0]?.symbol !== trade.symbol)) flush();
    run.push(trade);
  }
  flush();
  return records;
}

const recordSchema = z.union([
  tradeRecordSchema,
  z.array(tradeRecordSchema).check(z.minLength(1), z.maxLength(TRADES_PER_RECORD)),
]);

/**
 * A record's trades, in order, or undefined for a record that is not one (a poison record: dead-lettered,
 * never retried): not JSON, a trade or a list of trades that fails the schema.
 */
export function decodeTradeRecord(json: string): Trade[] | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  const parsed = recordSchema.safeParse(value);
  if (!parsed.success) return undefined;
  return Array.isArray(parsed.data) ? parsed.data : [parsed.data];
}
