/**
 * The service's own CloudWatch metrics (docs/operations.md#metrics): one catalogue that the functions emit
 * through (functions/runtime/metrics.ts), the dashboard and alarms read (lib/constructs/operations.ts), and
 * the local stack summarizes (`GET /_local/metrics`). Emitted as CloudWatch embedded metric format (EMF) log
 * lines under one namespace, with the `service` dimension; a metric with a `dimension` also goes out once
 * per value of that dimension (never a key, secret or key-derived value).
 */
import { FEED_SERVICE_NAME } from './feed.ts';

export const METRICS_NAMESPACE = 'MarketDataAlerts';
export const METRICS_NAMESPACE_ENV = 'POWERTOOLS_METRICS_NAMESPACE';

type Unit = 'Count' | 'Milliseconds' | 'Seconds' | 'None';

export interface MetricDefinition {
  readonly name: string;
  readonly unit: Unit;
  readonly description: string;
  /** A dimension the metric is also emitted with (its value chosen per data point). */
  readonly dimension?: string;
  /** The `service` dimension it is emitted with, when not the Lambdas' SERVICE_NAME (the feed connector). */
  readonly service?: string;
}

export const METRICS = {
  tradesApplied: { name: 'TradesApplied', unit: 'Count', description: 'Trades counted in full' },
  latePrints: { name: 'LatePrints', unit: 'Count', description: 'Late prints folded into forming bars' },
  tradesHandedBack: {
    name: 'TradesHandedBack',
    unit: 'Count',
    description: 'Trades of symbols whose ledger other writers kept changing: delivered again, counted then',
  },
  tradesRefused: {
    name: 'TradesRefused',
    unit: 'Count',
    description:
      'Trades not applied, by reason (duplicate, redelivered, late, future, outside_session, invalid, unpriced, poison)',
    dimension: 'Reason',
  },
  amendmentsApplied: {
    name: 'AmendmentsApplied',
    unit: 'Count',
    description: 'Cancels, errors and corrections applied: the bars and price of their trade rewritten',
  },
  amendmentsRefused: {
    name: 'AmendmentsRefused',
    unit: 'Count',
    description: 'Amendments that changed nothing, by reason (unknown_trade, other_session, duplicate)',
    dimension: 'Reason',
  },
  ingestBatchSize: { name: 'IngestBatchSize', unit: 'Count', description: 'Records per ingest batch' },
  ingestWait: {
    name: 'IngestWait',
    unit: 'Milliseconds',
    description: 'The oldest trade of a batch: from its time to the ingest starting on it',
  },
  ingestLag: {
    name: 'IngestLag',
    unit: 'Milliseconds',
    description: 'The oldest trade of a batch: from its time to its commit',
  },
  consumerBehind: {
    name: 'ConsumerBehind',
    unit: 'Milliseconds',
    description:
      'The windowed ingest consumer: how far its reading of the furthest-behind shard trails the stream (MillisBehindLatest)',
  },
  consumerLeaseTaken: {
    name: 'ConsumerLeaseTaken',
    unit: 'Count',
    description:
      'The windowed ingest consumer: a task took the lease, at its start or taking over from another',
  },
  candlesCompleted: { name: 'CandlesCompleted', unit: 'Count', description: 'Bars completed' },
  alertsFired: { name: 'AlertsFired', unit: 'Count', description: 'In-force alerts appended' },
  breaksFired: { name: 'BreaksFired', unit: 'Count', description: 'Simultaneous breaks appended' },
  stateChanges: { name: 'StateChanges', unit: 'Count', description: 'Symbol states written' },
  deadLettered: { name: 'DeadLettered', unit: 'Count', description: 'Records set apart whole' },
  pushesSent: {
    name: 'PushesSent',
    unit: 'Count',
    description: 'Events pushed to a connection, each a usage row (batched quotes share a frame)',
  },
  pushFrames: { name: 'PushFrames', unit: 'Count', description: 'WebSocket frames posted with pushes' },
  pushesGone: { name: 'PushesGone', unit: 'Count', description: 'Posts to a connection already gone' },
  pushesFailed: { name: 'PushesFailed', unit: 'Count', description: 'Posts that failed otherwise' },
  usageRowsUnrecorded: {
    name: 'UsageRowsUnrecorded',
    unit: 'Count',
    description: 'Usage rows the sink could not record (their events are delivered again)',
  },
  pushLag: {
    name: 'PushLag',
    unit: 'Milliseconds',
    description: 'From a change committed to its message posted (the oldest of a batch)',
  },
  fanOutWait: {
    name: 'FanOutWait',
    unit: 'Milliseconds',
    description:
      'The oldest trade behind a fan-out batch (alerts): from its time to the fan-out starting on it',
  },
  tradeToPost: {
    name: 'TradeToPost',
    unit: 'Milliseconds',
    description:
      'The oldest trade behind a batch of pushes (quotes by the ingest, alerts by the fan-out): from its time to its messages posted',
  },
  connects: { name: 'WebSocketConnects', unit: 'Count', description: 'Connections opened' },
  evictions: { name: 'WebSocketEvictions', unit: 'Count', description: 'Connections replaced (4409)' },
  refusals: {
    name: 'WebSocketRefusals',
    unit: 'Count',
    description: 'Connections closed or refused for access (4401, 4403)',
    dimension: 'CloseCode',
  },
  authorizerOutcomes: {
    name: 'AuthorizerOutcomes',
    unit: 'Count',
    description: 'Authorizer decisions: allow, 401, or 403 with its error code',
    dimension: 'Outcome',
  },
  clientErrors: {
    name: 'ClientErrors',
    unit: 'Count',
    description: 'REST 4xx answers by error code (the handlers log them; a metric filter counts the lines)',
    dimension: 'Code',
  },
  marketOpen: {
    name: 'MarketOpen',
    unit: 'None',
    description: '1 while the regular session runs (the calendar), else 0: the feed-silence alarm reads it',
  },
  feedTradesReceived: {
    name: 'FeedTradesReceived',
    unit: 'Count',
    description: 'Trades the feed connector received from its provider',
    service: FEED_SERVICE_NAME,
  },
  feedTradesPut: {
    name: 'FeedTradesPut',
    unit: 'Count',
    description: 'Trades the feed connector put on the trades stream',
    service: FEED_SERVICE_NAME,
  },
  feedReconnects: {
    name: 'FeedReconnects',
    unit: 'Count',
    description: 'Connections to the provider opened again after a drop or a silent socket',
    service: FEED_SERVICE_NAME,
  },
  feedDisplaced: {
    name: 'FeedDisplaced',
    unit: 'Count',
    description:
      'Closes for the connection limit after being subscribed: another connection uses the feed’s key (alarmed)',
    service: FEED_SERVICE_NAME,
  },
  feedIdentitiesEvicted: {
    name: 'FeedIdentitiesEvicted',
    unit: 'Count',
    description: 'Trade ids the de-duplication forgot for its size cap while still inside its time window',
    service: FEED_SERVICE_NAME,
  },
  feedGapSeconds: {
    name: 'FeedGapSeconds',
    unit: 'Seconds',
    description: 'Seconds of the session without a connection to the provider (a gap)',
    service: FEED_SERVICE_NAME,
  },
  feedLag: {
    name: 'FeedLag',
    unit: 'Milliseconds',
    description: 'From a trade’s time to its PutRecords',
    service: FEED_SERVICE_NAME,
  },
  feedConnected: {
    name: 'FeedConnected',
    unit: 'None',
    description: '1 while the connector is connected and subscribed, else 0, every minute',
    service: FEED_SERVICE_NAME,
  },
  feedTradesDropped: {
    name: 'FeedTradesDropped',
    unit: 'Count',
    description: 'Trades not put, by reason (condition, duplicate, backpressure, malformed, invalid, unsent)',
    dimension: 'Reason',
    service: FEED_SERVICE_NAME,
  },
  feedPrintsOutsideBand: {
    name: 'FeedPrintsOutsideBand',
    unit: 'Count',
    description:
      'Equity prints outside the Limit Up-Limit Down band, put counting in volume only (also in FeedTradesPut)',
    service: FEED_SERVICE_NAME,
  },
} as const satisfies Record<string, MetricDefinition>;

export type MetricId = keyof typeof METRICS;

/**
 * How the REST handlers report `clientErrors`. They carry no EMF library, to keep their bundles lean
 * (docs/adr/0013-lean-lambda-bundles.md): each 4xx they answer is one INFO log line with this message and
 * the error code in `codeField`, and a CloudWatch metric filter on each REST function's log group
 * (lib/constructs/rest-api.ts) counts the lines as `ClientErrors` with the `service` and `Code` dimensions,
 * the metric the EMF path would have written.
 */
export const CLIENT_ERROR_LOG = { message: 'client error', codeField: 'errorCode' } as const;
