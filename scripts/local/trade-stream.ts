import { createHash } from 'node:crypto';
import type {
  Context,
  KinesisStreamBatchResponse,
  KinesisStreamEvent,
  KinesisStreamRecord,
} from 'aws-lambda';
import { INGEST_BATCH } from '#contracts/ingestion';
import { LOCAL_AWS } from './dynamo.ts';

/**
 * The local stand-in for the trades Kinesis stream and its Lambda event source mapping (ARCHITECTURE A4,
 * A5): records are sharded by partition key, each shard delivers its records in order, one batch at a
 * time, after a short batching window. A failing batch is bisected; a partial batch response retries from
 * the first failed record; a record that keeps failing goes to the dead letters, as the SQS on-failure
 * destination does on AWS.
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
}

export interface DeadLetter {
  readonly shardId: string;
  readonly sequenceNumber: string;
  readonly partitionKey: string;
  readonly reason: string;
}

interface QueuedRecord {
  readonly record: KinesisStreamRecord;
  attempts: number;
}

/**
 * Shorter than Lambda's one-second window: the local stack answers a replay's request once its trades are
 * ingested, and tests and demos should not wait a second per batch.
 */
const LOCAL_BATCH_WINDOW_MS = 100;

const STREAM_ARN = `arn:aws:kinesis:${LOCAL_AWS.region}:000000000000:stream/trades`;

class Shard {
  readonly queue: QueuedRecord[] = [];
  private running: Promise<void> | undefined;
  private sequence = 0n;

  constructor(
    readonly id: string,
    private readonly deliver: (shard: Shard, batch: QueuedRecord[]) => Promise<void>,
    private readonly options: Required<LocalStreamOptions>,
  ) {}

  nextSequenceNumber(): string {
    this.sequence += 1n;
    return this.sequence.toString().padStart(21, '0');
  }

  /** Starts the shard's delivery loop if it is idle; resolves when the queue is empty. */
  wake(): Promise<void> {
    this.running ??= this.run().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async run(): Promise<void> {
    while (this.queue.length > 0) {
      await new Promise((resolve) => setTimeout(resolve, this.options.batchWindowMs));
      const batch = this.queue.splice(0, this.options.batchSize);
      await this.deliver(this, batch);
    }
  }
}

export class LocalTradeStream {
  readonly deadLetters: DeadLetter[] = [];
  private readonly shards: Shard[];
  private readonly options: Required<LocalStreamOptions>;
  private stopped = false;

  constructor(
    private readonly consumer: StreamConsumer,
    options: LocalStreamOptions = {},
  ) {
    this.options = {
      shards: 2,
      batchSize: INGEST_BATCH.size,
      batchWindowMs: LOCAL_BATCH_WINDOW_MS,
      maxAttempts: 3,
      ...options,
    };
    this.shards = Array.from(
      { length: this.options.shards },
      (_, index) =>
        new Shard(
          `shardId-${String(index).padStart(12, '0')}`,
          (shard, batch) => this.deliver(shard, batch),
          this.options,
        ),
    );
  }

  /** Kinesis PutRecords: each record goes to the shard of its partition key, in the order given. */
  put(records: readonly { partitionKey: string; data: string }[]): void {
    if (this.stopped) throw new Error('the local trade stream is stopped');
    const woken = new Set<Shard>();
    for (const { partitionKey, data } of records) {
      const shard = this.shardOf(partitionKey);
      const sequenceNumber = shard.nextSequenceNumber();
      shard.queue.push({
        attempts: 0,
        record: {
          eventSource: 'aws:kinesis',
          eventSourceARN: STREAM_ARN,
          eventID: `${shard.id}:${sequenceNumber}`,
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
        },
      });
      woken.add(shard);
    }
    for (const shard of woken) void shard.wake();
  }

  /** Resolves once every record put so far has been delivered or dead-lettered. */
  async flush(): Promise<void> {
    await Promise.all(this.shards.map((shard) => shard.wake()));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.flush();
  }

  private shardOf(partitionKey: string): Shard {
    const hash = createHash('md5').update(partitionKey).digest();
    return this.shards[hash.readUInt32BE(0) % this.shards.length] as Shard;
  }

  private async deliver(shard: Shard, batch: QueuedRecord[]): Promise<void> {
    if (batch.length === 0) return;
    for (const queued of batch) queued.attempts++;
    let failedFrom: number;
    try {
      const response = await this.consumer({ Records: batch.map(({ record }) => record) });
      const failed = new Set((response?.batchItemFailures ?? []).map(({ itemIdentifier }) => itemIdentifier));
      failedFrom = batch.findIndex(({ record }) => failed.has(record.kinesis.sequenceNumber));
      if (failedFrom === -1) return;
    } catch (error) {
      if (batch.length > 1) {
        // Bisect on error: each half is delivered on its own, in order.
        const middle = Math.ceil(batch.length / 2);
        for (const queued of batch.slice(middle)) queued.attempts--;
        for (const queued of batch.slice(0, middle)) queued.attempts--;
        await this.deliver(shard, batch.slice(0, middle));
        await this.deliver(shard, batch.slice(middle));
        return;
      }
      failedFrom = 0;
      this.retryOrDeadLetter(shard, batch, error instanceof Error ? error.message : String(error));
      return;
    }
    this.retryOrDeadLetter(shard, batch.slice(failedFrom), 'reported as a batch item failure');
  }

  private retryOrDeadLetter(shard: Shard, records: QueuedRecord[], reason: string): void {
    const [first] = records;
    if (first && first.attempts >= this.options.maxAttempts) {
      this.deadLetters.push({
        shardId: shard.id,
        sequenceNumber: first.record.kinesis.sequenceNumber,
        partitionKey: first.record.kinesis.partitionKey,
        reason,
      });
      records.shift();
    }
    // Retried records go back to the front of the shard, ahead of newer ones: order per shard holds.
    shard.queue.unshift(...records);
  }
}
