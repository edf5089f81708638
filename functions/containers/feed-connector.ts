/**
 * The live feed connector's process entry (docs/data-sources.md; the contract: functions/contracts/feed.ts).
 * A long-running Node 24 process, bundled alone into the connector's container image: reads its settings and
 * the provider's credentials, feeds the Kinesis trades stream until SIGTERM or SIGINT, then puts what it holds
 * and exits 0. A setting it cannot run without, credentials the provider refuses, or another connection on
 * the same key displacing it again and again, end it with exit code 1 and one log line saying why (the
 * service restarts it). Every minute it logs each feed's status (connected, reconnecting since when, a gap
 * open since when) and its totals. Its position is kept in the feed-positions table (FEED_POSITIONS_TABLE).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KinesisClient } from '@aws-sdk/client-kinesis';
import { documentClientFor } from '#adapters/dynamo/document-client';
import { DynamoFeedPositionStore } from '#adapters/dynamo/feed-position-store';
import { KinesisTradeSink } from '#adapters/kinesis/trade-sink';
import { describeFeeds, FeedService, loggerFeedLog } from '#containers/feed-connector/service';
import {
  FeedSettingsError,
  feedCredentials,
  feedEnvironment,
  feedSymbols,
} from '#containers/feed-connector/settings';
import { FEED_ENV } from '#contracts/feed';
import { FeedError } from '#domain/feed/ports';
import { logger } from '#runtime/logger';

/** How often the process logs its status line. */
const STATUS_EVERY_MS = 60_000;

async function main(): Promise<void> {
  const env = feedEnvironment();
  const streamName = env[FEED_ENV.streamName];
  if (streamName === undefined) throw new FeedSettingsError(`${FEED_ENV.streamName} is required`);
  const provider = env[FEED_ENV.provider];
  const positionsTable = env[FEED_ENV.positionsTable];
  const service = new FeedService({
    provider,
    credentials: await feedCredentials(provider, env[FEED_ENV.secretArn]),
    ...(env[FEED_ENV.url] ? { url: env[FEED_ENV.url] } : {}),
    symbols: feedSymbols(env[FEED_ENV.symbols]),
    sink: new KinesisTradeSink(new KinesisClient({}), streamName),
    log: loggerFeedLog(logger),
    ...(positionsTable
      ? { positions: new DynamoFeedPositionStore(documentClientFor(new DynamoDBClient({})), positionsTable) }
      : {}),
  });
  const statusTimer = setInterval(() => {
    const status = service.status();
    logger.info('Feed status', { feeds: describeFeeds(status), ...status.totals });
  }, STATUS_EVERY_MS);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.info('Stopping: putting what is held', { signal });
      service.stop();
    });
  }
  logger.info('Feed connector starting', { provider, streamName, positionsTable });
  try {
    await service.run();
  } finally {
    clearInterval(statusTimer);
  }
  logger.info('Feed connector stopped');
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    const known = error instanceof FeedSettingsError || error instanceof FeedError;
    logger.error('Feed connector failed', { error: known ? (error as Error).message : String(error) });
    process.exit(1);
  },
);
