/**
 * The windowed ingest consumer's process entry (docs/adr/0026-long-running-ingest-consumer.md; its contract:
 * functions/contracts/ingest-consumer.ts). A long-running Node 24 process, bundled into the containers' image
 * and run by the Fargate service `cdk deploy` creates (lib/constructs/ingest-consumer.ts).
 * It stands by until it holds the consumer's lease, then reads every shard of the trades stream and ingests
 * them in windows (functions/containers/ingest-consumer/service.ts), on the same ports as the ingest Lambda.
 * SIGTERM or SIGINT: it commits what it folded, hands the lease over and exits 0. The lease lost, or a
 * setting it cannot run without: exit 1 and one log line saying why (ECS starts it again, as a standby).
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { basename, extname } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KinesisClient } from '@aws-sdk/client-kinesis';
import { PooledClientConnections } from '#adapters/api-gateway/pooled-connections';
import { DynamoConsumerLeaseStore } from '#adapters/dynamo/consumer-lease-store';
import { documentClientFor } from '#adapters/dynamo/document-client';
import { ShardReader } from '#adapters/kinesis/shard-reader';
import { type ConsumerExit, IngestConsumerService } from '#containers/ingest-consumer/service';
import { windowContext } from '#containers/ingest-consumer/window-context';
import {
  INGEST_CONSUMER_ENV,
  INGEST_CONSUMER_TASKS,
  QUOTE_POST_WORKER_ENTRY,
  SHARD_READING,
} from '#contracts/ingest-consumer';
import { awsIngestPorts } from '#handlers/ingest/service-ports';
import { windowHandlerOn } from '#handlers/ingest/windows';
import { logger } from '#runtime/logger';
import { metrics, recordMetric } from '#runtime/metrics';
import { SDK_CALL_TIMEOUTS } from '#runtime/sdk-clients';
import { ConsumerLease } from '#use-cases/consumer-lease';

/** A setting the consumer cannot start without: told in one line, never with a stack. */
class ConsumerSettingsError extends Error {}

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new ConsumerSettingsError(`${name} is required`);
  return value;
}

/** The post workers the task's size runs; a task without the setting (a local run) runs the session's. */
function postWorkers(): number {
  const setting = process.env[INGEST_CONSUMER_ENV.postWorkers];
  if (setting === undefined || setting === '') return INGEST_CONSUMER_TASKS.session.postWorkers;
  const workers = Number(setting);
  if (!Number.isInteger(workers) || workers < 1) {
    throw new ConsumerSettingsError(
      `${INGEST_CONSUMER_ENV.postWorkers} must be a whole number of at least 1`,
    );
  }
  return workers;
}

async function main(): Promise<ConsumerExit> {
  const streamArn = required(INGEST_CONSUMER_ENV.streamArn);
  const consumerArn = required(INGEST_CONSUMER_ENV.streamConsumerArn);
  const leasesTable = required(INGEST_CONSUMER_ENV.leasesTable);
  const workers = postWorkers();
  const holder = `${hostname()}/${randomUUID()}`;
  // A call whose stream went silent fails rather than hangs; a subscription's own silence is the reader's to
  // judge (SHARD_READING.silentAfterMs), so the SDK's allows twice as long.
  const kinesis = new KinesisClient({ requestHandler: { requestTimeout: 2 * SHARD_READING.silentAfterMs } });
  const lease = new ConsumerLease({
    // A client of its own, not the windows' (functions/runtime/dynamo.ts): a renewal never queues for a
    // socket behind a window's commits.
    store: new DynamoConsumerLeaseStore(
      documentClientFor(new DynamoDBClient({ requestHandler: SDK_CALL_TIMEOUTS })),
      leasesTable,
    ),
    holder,
  });
  const context = windowContext(holder);
  // The quotes' posts on worker threads, where the stack streams: the post worker's entry sits beside this one,
  // as TypeScript in the project and as a bundle in the image.
  const posts = awsIngestPorts.streamsQuotes()
    ? new PooledClientConnections(
        new URL(`./${basename(QUOTE_POST_WORKER_ENTRY, '.ts')}${extname(import.meta.url)}`, import.meta.url),
        workers,
      )
    : undefined;
  const ports = posts ? { ...awsIngestPorts, clientConnections: () => posts } : awsIngestPorts;
  const log = {
    info: (message: string, fields: Record<string, unknown> = {}) => logger.info({ message, ...fields }),
    warn: (message: string, fields: Record<string, unknown> = {}) => logger.warn({ message, ...fields }),
  };
  const service = new IngestConsumerService({
    lease,
    readShards: (positions, deliver) =>
      new ShardReader({ client: kinesis, streamArn, consumerArn, positions, deliver, log: log.warn }),
    windowHandler: (checkpoints) => {
      const handle = windowHandlerOn({ ...ports, checkpoints, wallClockMs: Date.now });
      return (window) => handle(window, context);
    },
    metrics: {
      // Published at once: they are the consumer's heartbeat, also while no window runs.
      behind: (ms) => {
        recordMetric('consumerBehind', ms);
        metrics.publishStoredMetrics();
      },
      leaseTaken: () => {
        recordMetric('consumerLeaseTaken', 1);
        metrics.publishStoredMetrics();
      },
    },
    log,
  });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.info('Stopping: committing what is folded, then handing the lease over', { signal });
      service.stop();
    });
  }
  logger.info('Ingest consumer starting: standing by for the lease', { holder, streamArn });
  return service.run();
}

main().then(
  (exit) => {
    logger.info('Ingest consumer stopped', { exit });
    process.exit(exit === 'stopped' ? 0 : 1);
  },
  (error: unknown) => {
    const known = error instanceof ConsumerSettingsError;
    logger.error('Ingest consumer failed', { error: known ? error.message : String(error) });
    process.exit(1);
  },
);
