import { emptyQuotePushTally, type QuotePushTally } from '#use-cases/push-quotes';
import { lambdaContext } from '../local/lambda-context.ts';
import { recordMeasuredUnits } from './measured-units.ts';
import type { BenchResult } from './types.ts';

/**
 * The Lambda runtime's own lines for an invocation in the text log format (AWS Lambda Developer Guide, "Using
 * CloudWatch Logs with Lambda": START, END and REPORT), as they read for the ingest function: about this many
 * bytes, the request id and the REPORT line's durations and memory included.
 */
const PLATFORM_LINES =
  'START RequestId: 6f3b6c1e-0f6a-4a7e-9d5c-2f1b8e4a9c10 Version: $LATEST\n' +
  'END RequestId: 6f3b6c1e-0f6a-4a7e-9d5c-2f1b8e4a9c10\n' +
  'REPORT RequestId: 6f3b6c1e-0f6a-4a7e-9d5c-2f1b8e4a9c10\tDuration: 287.52 ms\tBilled Duration: 288 ms\t' +
  'Memory Size: 1024 MB\tMax Memory Used: 187 MB\t\n';

/**
 * What the ingest writes to CloudWatch Logs a batch (the Lambda) or a window (the consumer), through the
 * functions' own logging: the batch's log line and its metrics as EMF (functions/handlers/ingest/), flushed as
 * each invocation's middleware flushes them, with a typical batch's counts (120 trades applied, 3 bars
 * completed, 2 states, 40 quotes pushed, nothing refused), plus the runtime's START, END and REPORT lines for
 * a Lambda invocation. Bytes are what CloudWatch Logs bills by ($0.50 a GB ingested, scripts/lib/cost-model.ts).
 */
export async function benchLogBytes(): Promise<BenchResult[]> {
  // As deployed: metrics on, INFO. Set before the modules that read them are loaded.
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
  process.env.POWERTOOLS_TRACE_ENABLED = 'false';
  const { logger } = await import('#runtime/logger');
  // The Lambda context's keys every line carries on AWS (the logContext middleware adds them).
  logger.addContext(lambdaContext('MarketDataAlerts-IngestionIngest5B3C9F1A-AbCdEfGhIjKl', 60_000));
  const { metrics, recordMetric } = await import('#runtime/metrics');
  const { recordIngestMetrics, recordQuotePush } = await import('#handlers/ingest/service-ports');
  const outcome = {
    applied: 120,
    latePrints: 0,
    refused: {
      duplicate: 0,
      redelivered: 0,
      late: 0,
      future: 0,
      outside_session: 0,
      invalid: 0,
      unpriced: 0,
    },
    future: [],
    amendmentsApplied: 0,
    amendmentsRefused: { unknown_trade: 0, other_session: 0, duplicate: 0 },
    alerts: 0,
    breaks: 0,
    statesChanged: 2,
    candlesCompleted: 3,
    recovered: 0,
    handedBack: 0,
    failedSymbols: [],
  };
  const tally: QuotePushTally = {
    ...emptyQuotePushTally(),
    quotes: 40,
    sent: 40,
    frames: 40,
    oldestTradeMs: Date.now() - 400,
    postedAtMs: Date.now(),
  };
  const measure = (write: () => void): number => {
    let bytes = 0;
    const original = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string | Uint8Array) => {
      bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
      return true;
    }) as typeof process.stdout.write;
    try {
      write();
    } finally {
      process.stdout.write = original;
    }
    return bytes;
  };
  const batch = measure(() => {
    recordIngestMetrics(outcome, { records: 40, poison: 0, deadLettered: 0 });
    recordQuotePush(tally);
    recordMetric('ingestWait', 280);
    recordMetric('ingestLag', 410);
    const { future: _future, refused, ...counts } = outcome;
    logger.info('ingested a batch', {
      records: 40,
      ...counts,
      refused: { ...refused, poison: 0 },
      deadLettered: 0,
    });
    metrics.publishStoredMetrics();
  });
  const platform = Buffer.byteLength(PLATFORM_LINES);
  await recordMeasuredUnits('logs', {
    bytesPerInvocation: batch + platform,
    bytesPerWindow: batch,
    source:
      'npm run bench -- log-bytes (a typical batch’s log line and EMF metrics, and the runtime’s lines)',
  });
  return [
    {
      name: 'CloudWatch Logs bytes written by the ingest, a typical batch or window (metrics as EMF, INFO)',
      figures: {
        'the ingest’s log line and metrics': batch,
        'the Lambda runtime’s START, END and REPORT lines': platform,
        'a Lambda batch in all': batch + platform,
      },
    },
  ];
}
