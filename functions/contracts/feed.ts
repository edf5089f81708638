/**
 * The live feed connector's configuration (docs/data-sources.md): the providers, the environment variables
 * the connector reads, the credential names of each provider, and the `service` dimension of its metrics.
 * The CDK (lib/constructs/feed-connector.ts), the container entry (functions/containers/feed-connector.ts)
 * and the local command read these names from here.
 */

/** The providers the connector speaks to (`-c feed=...` on AWS, `--provider` locally). */
export const FEED_PROVIDERS = ['alpaca', 'polygon'] as const;
export type FeedProvider = (typeof FEED_PROVIDERS)[number];

export function isFeedProvider(value: unknown): value is FeedProvider {
  return typeof value === 'string' && (FEED_PROVIDERS as readonly string[]).includes(value);
}

/** The environment variables of the connector process. */
export const FEED_ENV = {
  /** `alpaca` | `polygon`. */
  provider: 'FEED_PROVIDER',
  /**
   * On AWS, the Secrets Manager secret holding the provider's credentials as JSON (FEED_CREDENTIALS below),
   * read once at start by the task role and never logged. Without it (locally) the same names are read
   * from the process environment.
   */
  secretArn: 'FEED_SECRET_ARN',
  /** Optional: another endpoint of the same protocol (e.g. Alpaca's `sip` feed, or a fake). */
  url: 'FEED_URL',
  /** The Kinesis trades stream the connector puts records into. */
  tradesStreamName: 'TRADES_STREAM_NAME',
  /** Optional, comma-separated; defaults to the universe (data/universe.csv). */
  symbols: 'FEED_SYMBOLS',
} as const;

/** The keys of the credentials JSON (the secret's value on AWS, environment variables locally). */
export const FEED_CREDENTIALS = {
  alpaca: ['APCA_API_KEY_ID', 'APCA_API_SECRET_KEY'],
  polygon: ['POLYGON_API_KEY'],
} as const satisfies Record<FeedProvider, readonly string[]>;

/** The `service` dimension of the connector's metrics and its Powertools service name. */
export const FEED_CONNECTOR_SERVICE = 'feed-connector';

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
