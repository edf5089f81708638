import { CALLBACK_URL_ENV, POST_CONCURRENCY } from '#contracts/websocket';
import { nowMs } from '#runtime/clock';
import { environment } from '#runtime/environment';
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
import type { IngestOutcome, IngestPorts } from '#use-cases/ingest-trades';
import { QuotePush, type QuotePushTally } from '#use-cases/push-quotes';

/**
 * What both ingests are built on (the Lambda's, functions/handlers/ingest/trades.ts, and the windowed
 * consumer's, functions/handlers/ingest/windows.ts): the service's ports, on AWS or a local stack's.
 */
export type IngestServicePorts = MarketDataPorts &
  StratPorts &
  StreamingPorts &
  Pick<ServicePorts, 'deadLetterSink' | 'nowMs' | 'clientConnections' | 'credentialsLookup' | 'usageSink'> & {
    /** Whether the stack streams to partners: it has the WebSocket API the quotes are posted to. */
    readonly streamsQuotes: () => boolean;
  };

/**
 * Both ingests' ports on AWS: the Lambda's (functions/handlers/ingest/trades.ts) and the windowed consumer's
 * service (functions/containers/ingest-consumer.ts), each finding its tables, queue and endpoints in the
 * environment the CDK gives it.
 */
export const awsIngestPorts: IngestServicePorts = {
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
};

/** The ingest's stores and clock. */
export async function ingestPortsOn(p: IngestServicePorts): Promise<Omit<IngestPorts, 'quotes'>> {
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
}

/**
 * A new push of one batch's (or window's) quotes, or undefined where nobody streams; `concurrency` posts in
 * flight.
 */
export function quotePushOn(p: IngestServicePorts, concurrency = POST_CONCURRENCY): QuotePush | undefined {
  return p.streamsQuotes()
    ? new QuotePush({
        subscriptions: p.subscriptionStore(),
        connections: p.connectionStore(),
        clients: p.clientConnections(),
        usage: p.usageSink(),
        credentials: p.credentialsLookup(),
        nowMs: p.nowMs,
        concurrency,
      })
    : undefined;
}

/** What an ingest's commits came to, as its business metrics (docs/operations.md#metrics). */
export function recordIngestMetrics(
  outcome: IngestOutcome | undefined,
  { records, poison, deadLettered }: { records: number; poison: number; deadLettered: number },
): void {
  if (records > 0) recordMetric('ingestBatchSize', records);
  recordMetric('deadLettered', deadLettered);
  recordCounts('tradesRefused', { ...outcome?.refused, poison });
  if (outcome === undefined) return;
  recordMetric('tradesApplied', outcome.applied);
  recordMetric('latePrints', outcome.latePrints);
  recordMetric('tradesHandedBack', outcome.handedBack);
  recordMetric('amendmentsApplied', outcome.amendmentsApplied);
  recordCounts('amendmentsRefused', outcome.amendmentsRefused);
  recordMetric('candlesCompleted', outcome.candlesCompleted);
  recordMetric('alertsFired', outcome.alerts);
  recordMetric('breaksFired', outcome.breaks);
  recordMetric('stateChanges', outcome.statesChanged);
}

/** The quotes' push metrics and log lines; usage rows the sink could not record are logged whole. */
export function recordQuotePush(tally: QuotePushTally): void {
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
