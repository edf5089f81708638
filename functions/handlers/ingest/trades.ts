import type { KinesisStreamBatchResponse, KinesisStreamEvent, KinesisStreamRecord } from 'aws-lambda';
import { isAmendment, type StreamItem } from '#domain/market-data/bars';
import type { RefusedRecord } from '#domain/market-data/dead-letters';
import type { DeadLetterSink } from '#domain/market-data/ports';
import { decodeTradeRecord, encodeTradeRecord } from '#domain/market-data/trade-records';
import { nowMs } from '#runtime/clock';
import { instrumented } from '#runtime/lambda-handler';
import { logger } from '#runtime/logger';
import { recordCounts, recordMetric } from '#runtime/metrics';
import { deadLetterSink } from '#runtime/ports/dead-letters';
import { barStore, ledgerStore, priceStore, tradeLog, universe } from '#runtime/ports/market-data';
import { alertFeed, breakFeed, setupStore, stateStore } from '#runtime/ports/strat';
import { type IngestOutcome, type IngestPorts, ingestTrades } from '#use-cases/ingest-trades';

function refusedRecord(
  record: KinesisStreamRecord,
  data: string,
  reason: RefusedRecord['reason'],
  detail: string,
): RefusedRecord {
  const { partitionKey, sequenceNumber } = record.kinesis;
  return { reason, detail, partitionKey, sequenceNumber, data };
}

/** The batch's business metrics (docs/operations.md#metrics). */
function recordIngestMetrics(
  outcome: IngestOutcome,
  batch: { readonly records: number; readonly poison: number; readonly deadLettered: number },
): void {
  recordMetric('ingestBatchSize', batch.records);
  recordMetric('tradesApplied', outcome.applied);
  recordMetric('latePrints', outcome.latePrints);
  recordMetric('tradesHandedBack', outcome.handedBack);
  recordMetric('amendmentsApplied', outcome.amendmentsApplied);
  recordCounts('amendmentsRefused', outcome.amendmentsRefused);
  recordCounts('tradesRefused', { ...outcome.refused, poison: batch.poison });
  recordMetric('candlesCompleted', outcome.candlesCompleted);
  recordMetric('alertsFired', outcome.alerts);
  recordMetric('breaksFired', outcome.breaks);
  recordMetric('stateChanges', outcome.statesChanged);
  recordMetric('deadLettered', batch.deadLettered);
}

/**
 * The ingest Lambda (docs/architecture.md#ingestion-a-kinesis-stream-of-trades-one-ingest-lambda): one
 * Kinesis batch of trades, folded into prices, ledgers and bars. Records it will never apply as they are go
 * to the trades dead-letter queue whole, with their reason (docs/replay.md#dead-letters-and-redrive): one
 * that is not a trade (`poison`: it could never succeed, and must not block the shard), and a trade stamped
 * after the service clock (`future`: redriven once the clock has caught up, if it was right). The other
 * refusals are counted by reason in the batch's log line. A symbol whose ledger write lost a race is reported
 * as a batch item failure from its first record, so Lambda delivers it again.
 */
export const createHandler =
  (deps: { ports: () => Promise<IngestPorts>; deadLetters: () => DeadLetterSink }) =>
  async (event: KinesisStreamEvent): Promise<KinesisStreamBatchResponse> => {
    const trades: StreamItem[] = [];
    const firstSequence = new Map<string, string>();
    const recordOf = new Map<StreamItem, KinesisStreamRecord>();
    const deadLetters: RefusedRecord[] = [];
    for (const record of event.Records) {
      const data = Buffer.from(record.kinesis.data, 'base64').toString('utf8');
      const decoded = decodeTradeRecord(data);
      if (!decoded) {
        deadLetters.push(refusedRecord(record, data, 'poison', 'not a trade record'));
        continue;
      }
      for (const trade of decoded) {
        trades.push(trade);
        recordOf.set(trade, record);
        if (!firstSequence.has(trade.symbol)) firstSequence.set(trade.symbol, record.kinesis.sequenceNumber);
      }
    }

    const ports = await deps.ports();
    const outcome = await ingestTrades(trades, ports);
    for (const trade of outcome.future) {
      const record = recordOf.get(trade);
      if (record) {
        // The trade alone: the rest of its record was applied.
        const detail = `stamped ${new Date(trade.timestamp).toISOString()}, after the service clock`;
        deadLetters.push(refusedRecord(record, encodeTradeRecord(trade), 'future', detail));
      }
    }
    // Before the batch is reported done: a refused record is never dropped unseen.
    if (deadLetters.length > 0) await deps.deadLetters().put(deadLetters);

    const { future, refused, ...counts } = outcome;
    const poison = deadLetters.filter(({ reason }) => reason === 'poison').length;
    recordIngestMetrics(outcome, { records: event.Records.length, poison, deadLettered: deadLetters.length });
    if (trades.length > 0) {
      const oldest = trades.reduce(
        (min, item) => (isAmendment(item) ? min : Math.min(min, item.timestamp)),
        Number.POSITIVE_INFINITY,
      );
      recordMetric('ingestLag', ports.nowMs() - oldest);
    }
    const log = deadLetters.length > 0 || future.length > 0 ? logger.warn : logger.info;
    log.call(logger, 'ingested a batch', {
      records: event.Records.length,
      ...counts,
      refused: { ...refused, poison },
      deadLettered: deadLetters.length,
    });
    return {
      batchItemFailures: outcome.failedSymbols.flatMap((symbol) => {
        const itemIdentifier = firstSequence.get(symbol);
        return itemIdentifier ? [{ itemIdentifier }] : [];
      }),
    };
  };

export const handler = instrumented(
  createHandler({
    ports: async () => {
      const instruments = await universe();
      return {
        ledgers: ledgerStore(),
        bars: barStore(),
        prices: priceStore(),
        tradeLog: tradeLog(),
        alerts: alertFeed(),
        breaks: breakFeed(),
        states: stateStore(),
        setups: setupStore(),
        sectorOf: (symbol: string) => instruments.get(symbol)?.sector ?? '',
        nowMs,
      };
    },
    deadLetters: deadLetterSink,
  }),
);
