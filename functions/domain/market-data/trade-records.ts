import * as z from 'zod/mini';
import { isAmendment, type StreamItem, type TradeAmendment } from './bars.ts';
import { normalizeSymbol } from './symbols.ts';

/**
 * The wire form of trades on the trades stream (JSON, partition key = symbol): what the provider collector,
 * the simulator and `npm run replay` put, and what the ingest Lambda reads. A record holds one trade (an
 * object) or up to TRADES_PER_RECORD consecutive trades of one symbol (an array, in order): a record is
 * put, failed and retried whole, so a producer that sends at most one record per symbol per call keeps
 * each symbol's order across retries (functions/adapters/kinesis/trade-sink.ts).
 *
 * A record may also hold amendments (amendmentRecordSchema): a cancel or error
 * `{symbol, amends, timestamp, cancel: true}` or a correction `{symbol, amends, timestamp, corrected: {price,
 * size, tradeId, volumeOnly?}}`, in the symbol's order among its trades (docs/candles.md#amendments).
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

const symbolSchema = z.pipe(z.string().check(z.minLength(1), z.maxLength(32)), z.transform(normalizeSymbol));
const tradeIdSchema = z.string().check(z.minLength(1), z.maxLength(128));

/** An amendment on the wire: exactly one of `cancel` and `corrected`. */
export const amendmentRecordSchema = z.union([
  z.object({
    symbol: symbolSchema,
    amends: tradeIdSchema,
    timestamp: z.int().check(z.positive()),
    cancel: z.literal(true),
  }),
  z.object({
    symbol: symbolSchema,
    amends: tradeIdSchema,
    timestamp: z.int().check(z.positive()),
    corrected: z.object({
      price: z.number().check(z.positive()),
      size: z.number().check(z.nonnegative()),
      tradeId: tradeIdSchema,
      volumeOnly: z.optional(z.boolean()),
    }),
  }),
]);

/** At most this many items (trades or amendments) in one record (about 10 KB). */
export const TRADES_PER_RECORD = 100;

const wireAmendment = ({ symbol, amends, timestamp, corrected }: TradeAmendment) => {
  if (corrected === undefined) return { symbol, amends, timestamp, cancel: true as const };
  const { price, size, tradeId, volumeOnly } = corrected;
  return {
    symbol,
    amends,
    timestamp,
    corrected: volumeOnly === true ? { price, size, tradeId, volumeOnly } : { price, size, tradeId },
  };
};

const wireTrade = (item: StreamItem) => {
  if (isAmendment(item)) return wireAmendment(item);
  const { symbol, price, size, timestamp, tradeId, volumeOnly } = item;
  return volumeOnly === true
    ? { symbol, price, size, timestamp, tradeId, volumeOnly }
    : { symbol, price, size, timestamp, tradeId };
};

export function encodeTradeRecord(item: StreamItem): string {
  return JSON.stringify(wireTrade(item));
}

export interface TradeRecord {
  readonly partitionKey: string;
  readonly data: string;
  /** How many items (trades and amendments) the record holds. */
  readonly trades: number;
}

/**
 * The records for `trades`, in order: each run of consecutive trades of one symbol, up to TRADES_PER_RECORD,
 * becomes one record keyed by its symbol.
 */
export function encodeTradeRecords(trades: readonly StreamItem[]): TradeRecord[] {
  const records: TradeRecord[] = [];
  let run: StreamItem[] = [];
  const flush = () => {
    if (run.length === 0) return;
    const [first] = run as [StreamItem];
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

const itemSchema = z.union([tradeRecordSchema, amendmentRecordSchema]);

const recordSchema = z.union([
  itemSchema,
  z.array(itemSchema).check(z.minLength(1), z.maxLength(TRADES_PER_RECORD)),
]);

/** A decoded item as the domain's: an amendment loses its wire-only `cancel` flag. */
function streamItemOf(item: z.infer<typeof itemSchema>): StreamItem {
  if (!('amends' in item)) return item;
  const { symbol, amends, timestamp } = item;
  return 'corrected' in item
    ? { symbol, amends, timestamp, corrected: item.corrected }
    : { symbol, amends, timestamp };
}

/**
 * A record's items (trades and amendments), in order, or undefined for a record that is not one (a poison
 * record: dead-lettered, never retried): not JSON, an item or a list of items that fails the schema.
 */
export function decodeTradeRecord(json: string): StreamItem[] | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  const parsed = recordSchema.safeParse(value);
  if (!parsed.success) return undefined;
  return Array.isArray(parsed.data) ? parsed.data.map(streamItemOf) : [streamItemOf(parsed.data)];
}
