import type { KinesisStreamBatchResponse, KinesisStreamEvent } from 'aws-lambda';
import type { DeadLetterSink } from '#domain/market-data/ports';
import { nowMs } from '#runtime/clock';
import { instrumented } from '#runtime/lambda-handler';
import { logger } from '#runtime/logger';
import { recordCounts, recordMetric } from '#runtime/metrics';
import { deadLetterSink } from '#runtime/ports/dead-letters';
import { awsMarketDataPorts, type MarketDataPorts } from '#runtime/ports/market-data';
import type { ServicePorts } from '#runtime/ports/service-ports';
import { awsStratPorts, type StratPorts } from '#runtime/ports/strat';
import { type IngestRecordsResult, ingestRecords } from '#use-cases/ingest-records';
import type { IngestPorts } from '#use-cases/ingest-trades';

/** The batch's business metrics (docs/operations.md#metrics). */
function recordIngestMetrics({ outcome, poison, deadLettered }: IngestRecordsResult, records: number): void {
  recordMetric('ingestBatchSize', records);
  recordMetric('tradesApplied', outcome.applied);
  recordMetric('latePrints', outcome.latePrints);
  recordMetric('tradesHandedBack', outcome.handedBack);
  recordMetric('amendmentsApplied', outcome.amendmentsApplied);
  recordCounts('amendmentsRefused', outcome.amendmentsRefused);
  recordCounts('tradesRefused', { ...outcome.refused, poison });
  recordMetric('candlesCompleted', outcome.candlesCompleted);
  recordMetric('alertsFired', outcome.alerts);
  recordMetric('breaksFired', outcome.breaks);
  recordMetric('stateChanges', outcome.statesChanged);
  recordMetric('deadLettered', deadLettered);
}

/**
 * The ingest Lambda (docs/architecture.md#ingestion-a-kinesis-stream-of-trades-one-ingest-lambda): one
 * Kinesis batch of trades, decoded and handed to the use case (functions/use-cases/ingest-records.ts), which
 * folds them into prices, ledgers and bars and dead-letters what it will never apply. A symbol whose ledger
 * write lost a race is reported as a batch item failure from its first record, so Lambda delivers it again.
 */
export const createHandler =
  (deps: { ports: () => Promise<IngestPorts>; deadLetters: () => DeadLetterSink }) =>
  async (event: KinesisStreamEvent): Promise<KinesisStreamBatchResponse> => {
    const records = event.Records.map(({ kinesis }) => ({
      data: Buffer.from(kinesis.data, 'base64').toString('utf8'),
      partitionKey: kinesis.partitionKey,
      sequenceNumber: kinesis.sequenceNumber,
    }));
    const ports = await deps.ports();
    const startedMs = ports.nowMs();
    const result = await ingestRecords(records, ports, { put: (refused) => deps.deadLetters().put(refused) });

    recordIngestMetrics(result, records.length);
    if (result.oldestTradeMs !== undefined) {
      // The hops of the latency budget (docs/benchmarks.md#the-latency-budget-hop-by-hop): to the start, to the commit.
      recordMetric('ingestWait', startedMs - result.oldestTradeMs);
      recordMetric('ingestLag', ports.nowMs() - result.oldestTradeMs);
    }
    const { future, refused, ...counts } = result.outcome;
    const log = result.deadLettered > 0 || future.length > 0 ? logger.warn : logger.info;
    log.call(logger, 'ingested a batch', {
      records: records.length,
      ...counts,
      refused: { ...refused, poison: result.poison },
      deadLettered: result.deadLettered,
    });
    return { batchItemFailures: result.retrySequenceNumbers.map((itemIdentifier) => ({ itemIdentifier })) };
  };

/** The ingest on the service's ports (functions/runtime/ports/service-ports.ts): on AWS, or a local stack's. */
export const handlerOn = (p: MarketDataPorts & StratPorts & Pick<ServicePorts, 'deadLetterSink' | 'nowMs'>) =>
  instrumented(
    createHandler({
      ports: async () => {
        const instruments = await p.universe();
        return {
          ledgers: p.ledgerStore(),
          bars: p.barStore(),
          prices: p.priceStore(),
          tradeLog: p.tradeLog(),
          alerts: p.alertFeed(),
          breaks: p.breakFeed(),
          states: p.stateStore(),
          setups: p.setupStore(),
          sectorOf: (symbol: string) => instruments.get(symbol)?.sector ?? '',
          nowMs: p.nowMs,
        };
      },
      deadLetters: p.deadLetterSink,
    }),
  );

export const handler = handlerOn({ ...awsMarketDataPorts, ...awsStratPorts, deadLetterSink, nowMs });
