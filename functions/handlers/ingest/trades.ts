import type { KinesisStreamBatchResponse, KinesisStreamEvent } from 'aws-lambda';
import { CALLBACK_URL_ENV, POST_CONCURRENCY } from '#contracts/websocket';
import type { DeadLetterSink } from '#domain/market-data/ports';
import { nowMs } from '#runtime/clock';
import { environment } from '#runtime/environment';
import { instrumented } from '#runtime/lambda-handler';
import { logger } from '#runtime/logger';
import { recordCounts, recordMetric, recordPushCounts } from '#runtime/metrics';
import { credentialsLookup } from '#runtime/ports/access';
import { clientConnections } from '#runtime/ports/client-connections';
import { deadLetterSink } from '#runtime/ports/dead-letters';
import { awsMarketDataPorts, type MarketDataPorts } from '#runtime/ports/market-data';
import type { ServicePorts } from '#runtime/ports/service-ports';
import { awsStratPorts, type StratPorts } from '#runtime/ports/strat';
import { awsStreamingPorts, type StreamingPorts } from '#runtime/ports/streaming';
import { usageSink } from '#runtime/ports/usage-sink';
import { type IngestRecordsResult, ingestRecords } from '#use-cases/ingest-records';
import type { IngestPorts } from '#use-cases/ingest-trades';
import { QuotePush, type QuotePushTally } from '#use-cases/push-quotes';

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

/** The quotes' push metrics and log lines; usage rows the sink could not record are logged whole. */
function recordQuotePush(tally: QuotePushTally): void {
  recordPushCounts({ ...tally, usageUnrecorded: tally.unrecordedRows.length });
  if (tally.oldestTradeMs !== undefined && tally.postedAtMs !== undefined) {
    recordMetric('tradeToPost', tally.postedAtMs - tally.oldestTradeMs);
  }
  if (tally.errors.length > 0) {
    logger.warn('some quote pushes failed (not pushed again)', {
      errors: tally.errors.slice(0, 10),
      count: tally.errors.length,
    });
  }
  if (tally.unrecordedRows.length > 0) {
    // Not delivered again like a stream record: the log is their record (docs/operations.md#usage-rows-not-recorded).
    logger.error('usage rows not recorded', { rows: tally.unrecordedRows });
  }
}

/**
 * The ingest Lambda (docs/architecture.md#ingestion-a-kinesis-stream-of-trades-one-ingest-lambda): one
 * Kinesis batch of trades, decoded and handed to the use case (functions/use-cases/ingest-records.ts), which
 * folds them into prices, ledgers and bars and dead-letters what it will never apply. Where the stack streams,
 * the quotes of its commits are posted right after them (docs/adr/0024-quotes-posted-by-the-ingest.md): a
 * failed post is counted, never a reason to deliver the batch again. A symbol whose ledger write lost a race
 * is reported as a batch item failure from its first record, so Lambda delivers it again.
 */
export const createHandler =
  (deps: {
    ports: () => Promise<IngestPorts>;
    deadLetters: () => DeadLetterSink;
    /** A new push of this batch's quotes, or undefined where nobody streams (no WebSocket API). */
    quotes: () => QuotePush | undefined;
  }) =>
  async (event: KinesisStreamEvent): Promise<KinesisStreamBatchResponse> => {
    const records = event.Records.map(({ kinesis }) => ({
      data: Buffer.from(kinesis.data, 'base64').toString('utf8'),
      partitionKey: kinesis.partitionKey,
      sequenceNumber: kinesis.sequenceNumber,
    }));
    const ports = await deps.ports();
    const quotes = deps.quotes();
    const startedMs = ports.nowMs();
    const result = await ingestRecords(records, quotes ? { ...ports, quotes } : ports, {
      put: (refused) => deps.deadLetters().put(refused),
    });

    recordIngestMetrics(result, records.length);
    if (quotes && quotes.tally.quotes > 0) recordQuotePush(quotes.tally);
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
export const handlerOn = (
  p: MarketDataPorts &
    StratPorts &
    StreamingPorts &
    Pick<
      ServicePorts,
      'deadLetterSink' | 'nowMs' | 'clientConnections' | 'credentialsLookup' | 'usageSink'
    > & {
      /** Whether the stack streams to partners: it has the WebSocket API the quotes are posted to. */
      readonly streamsQuotes: () => boolean;
    },
) =>
  instrumented(
    createHandler({
      ports: async () => {
        const instruments = await p.universe();
        return {
          ledgers: p.ledgerStore(),
          bars: p.barStore(),
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
      quotes: () =>
        p.streamsQuotes()
          ? new QuotePush({
              subscriptions: p.subscriptionStore(),
              connections: p.connectionStore(),
              clients: p.clientConnections(),
              usage: p.usageSink(),
              credentials: p.credentialsLookup(),
              nowMs: p.nowMs,
              concurrency: POST_CONCURRENCY,
            })
          : undefined,
    }),
  );

export const handler = handlerOn({
  ...awsMarketDataPorts,
  ...awsStratPorts,
  ...awsStreamingPorts,
  deadLetterSink,
  clientConnections,
  credentialsLookup,
  usageSink,
  nowMs,
  // The CDK sets the @connections endpoint only in a stack with the WebSocket API.
  streamsQuotes: () => environment()[CALLBACK_URL_ENV] !== undefined,
});
