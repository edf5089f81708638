import type { KinesisStreamBatchResponse, KinesisStreamEvent } from 'aws-lambda';
import type { DeadLetterSink } from '#domain/market-data/ports';
import { instrumented } from '#runtime/lambda-handler';
import { logger } from '#runtime/logger';
import { recordMetric } from '#runtime/metrics';
import { ingestRecords } from '#use-cases/ingest-records';
import type { IngestPorts } from '#use-cases/ingest-trades';
import type { QuotePush } from '#use-cases/push-quotes';
import {
  awsIngestPorts,
  type IngestServicePorts,
  ingestPortsOn,
  quotePushOn,
  recordIngestMetrics,
  recordQuotePush,
} from './service-ports.ts';

/**
 * The ingest Lambda (docs/architecture.md#ingestion-a-kinesis-stream-of-trades-one-windowed-consumer): one
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

    recordIngestMetrics(result.outcome, { ...result, records: records.length });
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
export const handlerOn = (p: IngestServicePorts) =>
  instrumented(
    createHandler({
      ports: () => ingestPortsOn(p),
      deadLetters: p.deadLetterSink,
      quotes: () => quotePushOn(p),
    }),
  );

export const handler = handlerOn(awsIngestPorts);
