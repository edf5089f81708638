import type {
  Context,
  KinesisStreamBatchResponse,
  KinesisStreamEvent,
  KinesisStreamRecord,
} from 'aws-lambda';
import { INGEST_BATCH } from '#contracts/ingestion';
import { LOCAL_AWS } from './dynamo.ts';
import { ShardedEventSource, withDefaults } from './sharded-event-source.ts';

/**
 * The local stand-in for the trades Kinesis stream and its Lambda event source mapping
 * (docs/architecture.md#ingestion-a-kinesis-stream-of-trades-one-ingest-lambda,
 * docs/architecture.md#local-stack-the-same-code-on-embedded-parts): records are sharded by partition key,
 * each shard delivers its records in order, one batch at a time, after a short batching window. A failing
 * batch is bisected; a partial batch response retries from the first failed record; a record that keeps
 * failing goes to the dead letters, as the SQS on-failure destination does on AWS. The shards are
 * sharded-event-source.ts's, shared with the change streams.
 */
export type StreamConsumer = (
  event: KinesisStreamEvent,
  context?: Context,
) => Promise<KinesisStreamBatchResponse | undefined>;

export interface LocalStreamOptions {
  readonly shards?: number;
  readonly batchSize?: number;
  readonly batchWindowMs?: number;
  /** Deliveries of one record before it is dead-lettered. */
  readonly maxAttempts?: number;
  /**
   * Where a dead-lettered record goes, as the message Lambda's on-failure destination receives on AWS (its
   * `KinesisBatchInfo`), with the record itself added: this stream keeps none to re-read.
   */
  readonly onDeadLetter?: (message: string) => void;
}

export interface DeadLetter {
  readonly shardId: string;
  readonly sequenceNumber: string;
  readonly partitionKey: string;
  readonly reason: string;
}

/**
 * Shorter than Lambda's one-second window: the local stack answers a replay's request once its trades are
 * ingested, and tests and demos should not wait a second per batch.
 */
const LOCAL_BATCH_WINDOW_MS = 100;

const STREAM_ARN = `arn:aws:kinesis:${LOCAL_AWS.region}:000000000000:stream/trades`;

export class LocalTradeStream {
  readonly deadLetters: DeadLetter[] = [];
  private readonly source: ShardedEventSource<KinesisStreamRecord, KinesisStreamEvent>;

  constructor(consumer: StreamConsumer, options: LocalStreamOptions = {}) {
    this.source = new ShardedEventSource<KinesisStreamRecord, KinesisStreamEvent>(
      {
        name: 'the local trade stream',
        itemIdentifier: (record) => record.kinesis.sequenceNumber,
        toEvent: (records) => ({ Records: records }),
        consume: (event) => consumer(event),
        deadLetter: (record, shardId, reason) => {
          const { sequenceNumber, partitionKey, data } = record.kinesis;
          this.deadLetters.push({ shardId, sequenceNumber, partitionKey, reason });
          options.onDeadLetter?.(
            JSON.stringify({
              requestContext: { condition: 'RetryAttemptsExhausted', reason },
              KinesisBatchInfo: {
                shardId,
                startSequenceNumber: sequenceNumber,
                endSequenceNumber: sequenceNumber,
                batchSize: 1,
                streamArn: STREAM_ARN,
              },
              records: [{ partitionKey, data: Buffer.from(data, 'base64').toString('utf8') }],
            }),
          );
        },
      },
      withDefaults(
        { shards: 2, batchSize: INGEST_BATCH.size, batchWindowMs: LOCAL_BATCH_WINDOW_MS, maxAttempts: 3 },
        options,
      ),
    );
  }

  /** Kinesis PutRecords: each record goes to the shard of its partition key, in the order given. */
  put(records: readonly { partitionKey: string; data: string }[]): void {
    if (this.source.isStopped) throw new Error('the local trade stream is stopped');
    for (const { partitionKey, data } of records) {
      this.source.put(partitionKey, ({ shardId, sequenceNumber }) => ({
        eventSource: 'aws:kinesis',
        eventSourceARN: STREAM_ARN,
        eventID: `${shardId}:${sequenceNumber}`,
        eventName: 'aws:kinesis:record',
        eventVersion: '1.0',
        invokeIdentityArn: 'arn:aws:iam::000000000000:role/ingest',
        awsRegion: LOCAL_AWS.region,
        kinesis: {
          kinesisSchemaVersion: '1.0',
          partitionKey,
          sequenceNumber,
          data: Buffer.from(data, 'utf8').toString('base64'),
          approximateArrivalTimestamp: Date.now() / 1000,
        },
      }));
    }
  }

  /** Resolves once every record put so far has been delivered or dead-lettered. */
  flush(): Promise<void> {
    return this.source.flush();
  }

  stop(): Promise<void> {
    return this.source.stop();
  }
}
