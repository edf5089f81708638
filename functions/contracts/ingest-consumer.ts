/**
 * The windowed ingest consumer as a long-running service on AWS (docs/adr/0026-long-running-ingest-consumer.md):
 * a Fargate service deployed unless `-c ingest=lambda`, one task holding the consumer's lease and
 * reading every shard of the trades stream through the ingest's enhanced fan-out consumer, one standby. The
 * environment its process reads, the lease's timings and the shard reading's, defined once for the process
 * entry (functions/containers/ingest-consumer.ts) and the CDK part that runs it.
 */
import { TABLES } from './tables.ts';

/**
 * How the trades stream is ingested: the windowed consumer (the default, on AWS its Fargate service), or the
 * ingest Lambda's event source mapping, kept as the way back (`-c ingest=lambda`, `npm start -- --ingest
 * lambda`). The same names choose the local stack's ingest.
 */
export const INGEST_DESIGNS = ['windows', 'lambda'] as const;
export type IngestDesign = (typeof INGEST_DESIGNS)[number];
export const DEFAULT_INGEST_DESIGN: IngestDesign = 'windows';

/**
 * The ingest design `name` names, the default when it is absent; otherwise an error saying so of `given` (the
 * option, variable or CDK context as given).
 */
export function ingestDesignNamed(name: string | undefined, given: string): IngestDesign {
  if (name === undefined) return DEFAULT_INGEST_DESIGN;
  const design = INGEST_DESIGNS.find((known) => known === name);
  if (design === undefined) throw new Error(`${given} must be one of ${INGEST_DESIGNS.join(', ')}`);
  return design;
}

/** The consumer's process entry, bundled into the containers' image (functions/containers/). */
export const INGEST_CONSUMER_ENTRY = 'functions/containers/ingest-consumer.ts';

/**
 * The consumer's post workers' entry (functions/adapters/api-gateway/pooled-connections.ts), bundled beside the
 * consumer's: its worker threads post the quotes' frames.
 */
export const QUOTE_POST_WORKER_ENTRY = 'functions/containers/quote-post-worker.ts';

/**
 * The consumer's name in its logs (the log streams' prefix, the window handler's function name). Its metrics
 * go out under the Lambdas' service name, beside the ingest Lambda's, where the dashboard and alarms read them.
 */
export const INGEST_CONSUMER_SERVICE_NAME = 'ingest-consumer';

/** A size of the consumer's tasks on Fargate (ARM64). */
export interface ConsumerTaskSize {
  readonly vcpu: number;
  readonly memoryGb: number;
  /**
   * Worker threads posting the quotes' frames (INGEST_CONSUMER_ENV.postWorkers): one thread posts about 2,800
   * a second (the SDK's CPU a post); the consumer's own thread folds, commits and reads.
   */
  readonly postWorkers: number;
}

/**
 * The consumer's tasks on Fargate (ARM64), for the task definitions (lib/constructs/ingest-consumer.ts) and
 * the cost model (scripts/lib/cost-model.ts): one holds the lease and reads every shard, one stands by to take
 * it over. They run at one of two sizes, switched on a schedule (INGEST_CONSUMER_SIZE_SCHEDULE):
 *
 * - `session`: at the open's rate, measured here, the reading, fold and commits take about a fifth of a core
 *   (`npm run bench -- consumer-process`) and the posts about two and a half (`npm run bench -- posts`), before
 *   TLS (about 8,500 trades and 6,000 posts a second); 8 vCPU leave room for the open's own peaks and TLS
 *   until the tasks are measured on AWS (docs/adr/0026-long-running-ingest-consumer.md). Six post workers;
 *   the other two vCPU are the consumer's thread and the runtime's (garbage collection, TLS). 8 vCPU take
 *   16 GB at least on Fargate.
 * - `offSession`: pre-market, after hours, nights and weekends bring a few percent of the day's trades, a
 *   few hundred a second at their peaks: one vCPU, the consumer's thread and one post worker, posts about
 *   2,000 frames a second, several times what those hours bring.
 */
export const INGEST_CONSUMER_TASKS = {
  count: 2,
  session: { vcpu: 8, memoryGb: 16, postWorkers: 6 },
  offSession: { vcpu: 1, memoryGb: 2, postWorkers: 1 },
} as const satisfies { count: number; session: ConsumerTaskSize; offSession: ConsumerTaskSize };

/**
 * When the consumer's service changes size (EventBridge Scheduler, in New York time, weekdays): a scheduled
 * UpdateService names the other size's task definition, and ECS rolls the service over as for a deployment,
 * the new tasks standing by before the old holder hands the lease over at SIGTERM. The session's size from
 * half an hour before the open (09:30) to half an hour after the close (16:00), so the open and the closing
 * prints never run on the small size; market holidays keep the schedule (the large size idles that day).
 */
export const INGEST_CONSUMER_SIZE_SCHEDULE = {
  timeZone: 'America/New_York',
  sessionFrom: { hour: 9, minute: 0 },
  offSessionFrom: { hour: 16, minute: 30 },
} as const;

/** A time of day in hours: 16:30 is 16.5. */
const inHours = ({ hour, minute }: { readonly hour: number; readonly minute: number }) => hour + minute / 60;

/** Hours a weekday the consumer's tasks run at the session's size (the rest, at the off-session size). */
export const CONSUMER_SESSION_SIZE_HOURS =
  inHours(INGEST_CONSUMER_SIZE_SCHEDULE.offSessionFrom) - inHours(INGEST_CONSUMER_SIZE_SCHEDULE.sessionFrom);

export const INGEST_CONSUMER_ENV = {
  /** The trades stream's ARN (shards are listed on it). */
  streamArn: 'TRADES_STREAM_ARN',
  /** The enhanced fan-out consumer's ARN the shards are subscribed through. */
  streamConsumerArn: 'TRADES_STREAM_CONSUMER_ARN',
  /** The table of the consumer's lease and shard positions. */
  leasesTable: TABLES.consumerLeases.envVar,
  /** How many post workers the task's size runs (ConsumerTaskSize.postWorkers). */
  postWorkers: 'QUOTE_POST_WORKERS',
} as const;

/**
 * The consumer's lease: one item of the consumerLeases table. Clocks are never compared across tasks: a task
 * takes the lease over only once it has seen the same holder and renewal unchanged for `takeOverAfterMs` of
 * its own clock, and the holder stops folding once it could not renew for `holderGivesUpAfterMs` of its own,
 * which is shorter.
 */
export const CONSUMER_LEASE = {
  /** The lease item's key (`lease`) for the trades ingest. */
  ingestKey: 'ingest',
  /** How often the holder renews it, and a standby looks at it. */
  renewEveryMs: 1_000,
  /** How long a standby watches a renewal not change before it takes the lease. */
  takeOverAfterMs: 5_000,
  /** How long the holder goes on without a renewal before it counts the lease lost and stops. */
  holderGivesUpAfterMs: 3_500,
} as const;

/**
 * Reading a shard through `SubscribeToShard` (Kinesis Data Streams Developer Guide: a subscription lasts at
 * most 5 minutes, and is renewed from the last record read).
 */
export const SHARD_READING = {
  /**
   * A subscription that brought no event for this long is counted half-open, abandoned and made again:
   * Kinesis sends an event at least every few seconds, records or not.
   */
  silentAfterMs: 15_000,
  /** The first wait before subscribing a shard again after a failure, doubled up to `retryMaxMs`. */
  retryBaseMs: 500,
  retryMaxMs: 10_000,
} as const;
