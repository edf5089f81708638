import { isAmendment, type StreamItem } from '#domain/market-data/bars';
import type { RefusedRecord } from '#domain/market-data/dead-letters';
import type { DeadLetterSink } from '#domain/market-data/ports';
import { decodeTradeRecord, encodeTradeRecord } from '#domain/market-data/trade-records';
import { type IngestOutcome, type IngestPorts, ingestTrades } from '#use-cases/ingest-trades';

/** One record of the trades stream, its data decoded from base64. */
export interface TradeStreamRecord {
  readonly data: string;
  readonly partitionKey: string;
  readonly sequenceNumber: string;
}

/** What one batch of records came to. */
export interface IngestRecordsResult {
  readonly outcome: IngestOutcome;
  /** The records that are not trades (dead-lettered whole). */
  readonly poison: number;
  /** Every record handed to the dead-letter queue: poison and future trades. */
  readonly deadLettered: number;
  /** The oldest trade's timestamp, amendments aside; undefined when the batch holds no trade. */
  readonly oldestTradeMs: number | undefined;
  /** The sequence number of each failed symbol's first record, for the stream to deliver again. */
  readonly retrySequenceNumbers: readonly string[];
}

function refusedRecord(
  record: TradeStreamRecord,
  data: string,
  reason: RefusedRecord['reason'],
  detail: string,
): RefusedRecord {
  const { partitionKey, sequenceNumber } = record;
  return { reason, detail, partitionKey, sequenceNumber, data };
}

/** One record of the trades stream decoded: its items, or, when it is not a trade, its refusal as `poison`. */
export function decodeRecord(record: TradeStreamRecord): { items: StreamItem[] } | { poison: RefusedRecord } {
  const items = decodeTradeRecord(record.data);
  return items ? { items } : { poison: refusedRecord(record, record.data, 'poison', 'not a trade record') };
}

/** The trades refused as `future` by an ingest, each as a dead letter naming the record that brought it. */
export function futureRefusals(
  future: readonly StreamItem[],
  recordOf: ReadonlyMap<StreamItem, TradeStreamRecord>,
): RefusedRecord[] {
  return future.flatMap((trade) => {
    const record = recordOf.get(trade);
    if (!record) return [];
    const detail = `stamped ${new Date(trade.timestamp).toISOString()}, after the service clock`;
    return [refusedRecord(record, encodeTradeRecord(trade), 'future', detail)];
  });
}

/**
 * One batch of the trades stream, folded into prices, ledgers and bars (docs/architecture.md#ingestion-a-kinesis-stream-of-trades-one-windowed-consumer).
 * Records it will never apply as they are go to the dead-letter sink whole, with their reason
 * (docs/replay.md#dead-letters-and-redrive): one that is not a trade (`poison`: it could never succeed, and
 * must not block the shard), and a trade stamped after the service clock (`future`, the trade alone: the rest
 * of its record was applied). They are put before the batch is reported done, so a refused record is never
 * dropped unseen. A symbol whose ledger write lost a race comes back as its first record's sequence number.
 */
export async function ingestRecords(
  records: readonly TradeStreamRecord[],
  ports: IngestPorts,
  deadLetters: DeadLetterSink,
): Promise<IngestRecordsResult> {
  const trades: StreamItem[] = [];
  const firstSequence = new Map<string, string>();
  const recordOf = new Map<StreamItem, TradeStreamRecord>();
  const refused: RefusedRecord[] = [];
  for (const record of records) {
    const decoded = decodeRecord(record);
    if ('poison' in decoded) {
      refused.push(decoded.poison);
      continue;
    }
    for (const trade of decoded.items) {
      trades.push(trade);
      recordOf.set(trade, record);
      if (!firstSequence.has(trade.symbol)) firstSequence.set(trade.symbol, record.sequenceNumber);
    }
  }
  const poison = refused.length;

  const outcome = await ingestTrades(trades, ports);
  refused.push(...futureRefusals(outcome.future, recordOf));
  if (refused.length > 0) await deadLetters.put(refused);

  return {
    outcome,
    poison,
    deadLettered: refused.length,
    oldestTradeMs: oldestTradeMs(trades),
    retrySequenceNumbers: outcome.failedSymbols.flatMap((symbol) => {
      const sequenceNumber = firstSequence.get(symbol);
      return sequenceNumber ? [sequenceNumber] : [];
    }),
  };
}

/** The oldest trade's time among `items`, amendments aside; undefined when they hold no trade. */
export function oldestTradeMs(items: readonly StreamItem[]): number | undefined {
  const oldest = items.reduce(
    (min, item) => (isAmendment(item) ? min : Math.min(min, item.timestamp)),
    Number.POSITIVE_INFINITY,
  );
  return Number.isFinite(oldest) ? oldest : undefined;
}
