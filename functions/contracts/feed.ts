/**
 * The live feed connector's configuration (docs/data-sources.md): the environment its process reads, defined
 * once for the connector's entry (functions/containers/feed-connector.ts), `npm run feed`, and the CDK part
 * that runs it on AWS. The connector is a long-running Node 24 process, not a Lambda.
 */
import * as z from 'zod/mini';
import { TABLES } from './tables.ts';

export const FEED_PROVIDERS = ['alpaca', 'polygon'] as const;
export type FeedProvider = (typeof FEED_PROVIDERS)[number];

export function isFeedProvider(value: unknown): value is FeedProvider {
  return typeof value === 'string' && (FEED_PROVIDERS as readonly string[]).includes(value);
}

export const FEED_ENV = {
  /** `alpaca` | `polygon`. */
  provider: 'FEED_PROVIDER',
  /**
   * On AWS, the Secrets Manager secret holding the provider credentials as JSON (FEED_CREDENTIAL_NAMES);
   * read once at start, never logged. Without it (locally) the same names are read from the environment.
   */
  secretArn: 'FEED_SECRET_ARN',
  /** Optional: another endpoint of the same protocol (Alpaca's `sip` feed, a fake). */
  url: 'FEED_URL',
  /** The Kinesis trades stream to put into (locally the local stack's trade sink is used instead). */
  streamName: 'TRADES_STREAM_NAME',
  /** Optional, comma-separated: default, the universe (data/universe.csv). */
  symbols: 'FEED_SYMBOLS',
  /**
   * The table keeping each feed's position across restarts (docs/data-sources.md#a-restart-loses-nothing);
   * without it the connector starts knowing nothing of the time it was down.
   */
  positionsTable: TABLES.feedPositions.envVar,
} as const;

/** The credential names per provider: environment variables locally, keys of the secret's JSON on AWS. */
export const FEED_CREDENTIAL_NAMES = {
  alpaca: ['APCA_API_KEY_ID', 'APCA_API_SECRET_KEY'],
  polygon: ['POLYGON_API_KEY'],
} as const satisfies Record<FeedProvider, readonly string[]>;

/** The `service` dimension of the connector's metrics (the `feed*` entries of functions/contracts/metrics.ts). */
export const FEED_SERVICE_NAME = 'feed-connector';

/** The connector's process entry, bundled into the container image (functions/containers/). */
export const FEED_CONNECTOR_ENTRY = 'functions/containers/feed-connector.ts';

/**
 * The stack outputs present with `-c feed=...` (besides those of stack-outputs.ts): what the operator needs
 * to fill the secret, read the logs and restart the task (docs/data-sources.md#on-aws).
 */
export const FEED_STACK_OUTPUTS = {
  secretArn: 'FeedSecretArn',
  logGroupName: 'FeedLogGroupName',
  clusterName: 'FeedClusterName',
  serviceName: 'FeedServiceName',
} as const;

export const feedEnvironmentSchema = z.object({
  [FEED_ENV.provider]: z.enum(FEED_PROVIDERS),
  [FEED_ENV.secretArn]: z.optional(z.string().check(z.minLength(1))),
  [FEED_ENV.url]: z.optional(z.url()),
  [FEED_ENV.streamName]: z.optional(z.string().check(z.minLength(1))),
  [FEED_ENV.symbols]: z.optional(z.string().check(z.minLength(1))),
  [FEED_ENV.positionsTable]: z.optional(z.string().check(z.minLength(1))),
});

export type FeedEnvironment = z.infer<typeof feedEnvironmentSchema>;
