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
 * (docs/architecture.md#ingestion-a-kinesis-stream-of-trades-one-windowed-consumer,
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
  /** Records the stream holds before it refuses more (LOCAL_STREAM_CAPACITY). */
  readonly capacity?: number;
  /**
   * A consumer that holds delivered records of its own (the windowed ingest, scripts/local/windowed-ingest.ts):
   * how to have it ingest them, so that a flush still means "ingested".
   */
  readonly consumerFlush?: () => Promise<void>;
}

export interface DeadLetter {
  readonly shardId: string;
  readonly sequenceNumber: string;
  readonly partitionKey: string;
  readonly reason: string;
}

/**
 * Lambda has no window here (INGEST_BATCH.windowSeconds is 0) and enhanced fan-out pushes records as they
 * arrive; a few milliseconds let the trades of one put (a simulator tick, a replay's request) share a batch
 * without delaying a trade noticeably (docs/benchmarks.md#the-latency-budget-hop-by-hop). Under a backlog,
 * batches are full either way.
 */
const LOCAL_BATCH_WINDOW_MS = 10;

/**
 * How many records the local stream holds waiting for the ingest handler (docs/replay.md#back-pressure): a
 * producer faster than ingestion is refused (`offer`) or waits (`hasRoom`) rather than growing the queue
 * without bound. As many as one `POST /_local/records` may carry, so an empty stream takes any request.
 */
export const LOCAL_STREAM_CAPACITY = 50_000;

const STREAM_ARN = `arn:aws:kinesis:${LOCAL_AWS.region}:000000000000:stream/trades`;

export class LocalTradeStream {
  readonly deadLetters: DeadLetter[] = [];
  private readonly source: ShardedEventSource<KinesisStreamRecord, KinesisStreamEvent>;
  private readonly capacity: number;

  private readonly consumerFlush: () => Promise<void>;

  constructor(consumer: StreamConsumer, options: LocalStreamOptions = {}) {
    this.capacity = options.capacity ?? LOCAL_STREAM_CAPACITY;
    this.consumerFlush = options.consumerFlush ?? (async () => undefined);
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
        {
          shards: 2,
          batchSize: INGEST_BATCH.size,
          batchWindowMs: LOCAL_BATCH_WINDOW_MS,
          maxAttempts: 3,
          // The shards take turns: one ingest batch in flight at a time. On AWS each shard's batch runs in an
          // execution environment of its own; here every batch shares the stack's one thread, where two
          // batches at once each take about as long as both. In turn, each ends as soon as its own work is
          // done, and the next shard's batch, taken when its turn comes, holds every trade put until then: at
          // 20x the session's lag fell by about a tenth (docs/benchmarks.md#a-simulated-session-keeps-up).
          // The price is a backlog's pace, a little slower: one shard's work no longer fills the other's
          // waits for dynalite (docs/adr/0022-latency-at-market-scale.md#later-the-shards-take-turns).
          oneBatchAtATime: true,
        },
        {
          shards: options.shards,
          batchSize: options.batchSize,
          batchWindowMs: options.batchWindowMs,
          maxAttempts: options.maxAttempts,
        },
      ),
    );
  }

  /** Records waiting for the ingest handler. */
  get queued(): number {
    return this.source.queued;
  }

  /** Whether the stream holds fewer records than its capacity: a producer that can wait, waits for this. */
  hasRoom(): boolean {
    return this.source.queued < this.capacity;
  }

  /**
   * PutRecords with back-pressure: puts all the records and returns true when they fit in the capacity (an
   * empty stream takes any number), else puts none and returns false: the producer tries again later.
   */
  offer(records: readonly { partitionKey: string; data: string }[]): boolean {
    const queued = this.source.queued;
    if (queued > 0 && queued + records.length > this.capacity) return false;
    this.put(records);
    return true;
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

  /** Resolves once every record put so far has been delivered (and ingested) or dead-lettered. */
  async flush(): Promise<void> {
    await this.source.flush();
    await this.consumerFlush();
  }

  /**
   * Takes no more records and delivers the ones it holds; with `graceMs`, only for that long (then the batches
   * in flight finish and the rest is left). Returns how many records were left undelivered.
   */
  stop(graceMs?: number): Promise<number> {
    return this.source.stop(graceMs);
  }
}
