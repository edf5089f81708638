import { createHash } from 'node:crypto';
import pLimit from 'p-limit';

/**
 * The shard machinery shared by the local stand-ins for Lambda's stream event source mappings
 * (docs/architecture.md#local-stack-the-same-code-on-embedded-parts): the trades Kinesis stream
 * (trade-stream.ts) and the DynamoDB Streams of the stream tables (change-streams.ts). Records are sharded by
 * partition key; each shard delivers its records in order, one batch at a time, after a batching window. A
 * batch whose consumer throws is bisected (a bisection is no attempt, as with BisectBatchOnFunctionError); a
 * partial batch response (ReportBatchItemFailures) retries from the first failed record; a record that has
 * failed `maxAttempts` deliveries goes to the dead letters, as it would to the on-failure destination on AWS.
 * Nothing after a failed record is delivered before it.
 */

/** A shard's id as Kinesis writes it: `shardId-000000000003`. */
export function shardIdOf(index: number): string {
  return `shardId-${String(index).padStart(12, '0')}`;
}

/**
 * The shard of `shards` a partition key's records go to: by the MD5 of the key, as Kinesis maps a key to a
 * shard's hash-key range, so a key's records stay on one shard, in order.
 */
export function shardIndexOf(partitionKey: string, shards: number): number {
  return createHash('md5').update(partitionKey).digest().readUInt32BE(0) % shards;
}

export interface ShardedEventSourceOptions {
  readonly shards: number;
  readonly batchSize: number;
  readonly batchWindowMs: number;
  /** Deliveries of one record before it is dead-lettered. */
  readonly maxAttempts: number;
  /**
   * Whether the shards take turns, one batch in flight across all of them; a shard's batch is taken when its
   * turn comes, so it holds every record put until then. Unset, each shard runs a batch of its own at once.
   */
  readonly oneBatchAtATime?: boolean;
}

/** A consumer's partial batch response: the records it failed, by item identifier. */
export interface PartialBatchResponse {
  readonly batchItemFailures?: readonly { readonly itemIdentifier?: string }[];
}

/** Where a record was put: its shard and its sequence number there (increasing, zero padded). */
export interface ShardPosition {
  readonly shardId: string;
  readonly sequenceNumber: string;
}

/** What makes a sharded source a Kinesis stream or a DynamoDB stream. */
export interface EventSourceBinding<TRecord, TEvent> {
  /** Names the source in errors, e.g. 'the local trade stream'. */
  readonly name: string;
  /** The identifier a partial batch response names the record by: its sequence number. */
  itemIdentifier(record: TRecord): string;
  /** The event one invocation of the consumer receives. */
  toEvent(records: TRecord[]): TEvent;
  // biome-ignore lint/suspicious/noConfusingVoidType: Lambda's handler types (DynamoDBStreamHandler) return void.
  consume(event: TEvent): Promise<PartialBatchResponse | undefined | void>;
  /** Takes a record that failed its last attempt. */
  deadLetter(record: TRecord, shardId: string, reason: string): void;
}

/** `defaults` overridden by the options that are set (an `undefined` option keeps its default). */
export function withDefaults(
  defaults: ShardedEventSourceOptions,
  options: Partial<ShardedEventSourceOptions>,
): ShardedEventSourceOptions {
  const set = Object.entries(options).filter(([, value]) => value !== undefined);
  return { ...defaults, ...Object.fromEntries(set) };
}

interface QueuedRecord<TRecord> {
  readonly record: TRecord;
  attempts: number;
}

class Shard<TRecord> {
  readonly queue: QueuedRecord<TRecord>[] = [];
  running: Promise<void> | undefined;
  private sequence = 0n;

  constructor(readonly id: string) {}

  nextSequenceNumber(): string {
    this.sequence += 1n;
    return this.sequence.toString().padStart(21, '0');
  }
}

export class ShardedEventSource<TRecord, TEvent> {
  private readonly shards: Shard<TRecord>[];
  private stopped = false;
  /** Set when a stop's grace is over: each shard ends after its batch in flight. */
  private abandoning = false;
  /** The turn a shard's batch waits for, with `oneBatchAtATime`. */
  private readonly turns = pLimit(1);

  constructor(
    private readonly binding: EventSourceBinding<TRecord, TEvent>,
    private readonly options: ShardedEventSourceOptions,
  ) {
    this.shards = Array.from({ length: options.shards }, (_, index) => new Shard<TRecord>(shardIdOf(index)));
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /** Records put and not yet handed to the consumer (a batch in flight is no longer counted). */
  get queued(): number {
    return this.shards.reduce((total, shard) => total + shard.queue.length, 0);
  }

  /**
   * Appends a record to the shard of its partition key, after the records put before it; `build` makes the
   * record once its shard and sequence number are known. Returns the record.
   */
  put(partitionKey: string, build: (position: ShardPosition) => TRecord): TRecord {
    if (this.stopped) throw new Error(`${this.binding.name} is stopped`);
    const shard = this.shardOf(partitionKey);
    const record = build({ shardId: shard.id, sequenceNumber: shard.nextSequenceNumber() });
    shard.queue.push({ record, attempts: 0 });
    void this.wake(shard);
    return record;
  }

  /** Resolves once every record put so far has been delivered or dead-lettered. */
  async flush(): Promise<void> {
    await Promise.all(this.shards.map((shard) => this.wake(shard)));
  }

  /**
   * Refuses further records and resolves once the ones put so far are delivered or dead-lettered, or, with
   * `graceMs`, once that long has passed and the batches in flight are done: the records still queued then
   * are left undelivered, and their number is returned (0 when everything was delivered).
   */
  async stop(graceMs?: number): Promise<number> {
    this.stopped = true;
    const flushed = this.flush();
    if (graceMs === undefined) {
      await flushed;
      return 0;
    }
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([flushed, graceOver]);
    clearTimeout(timer);
    this.abandoning = true;
    await flushed;
    const left = this.queued;
    for (const shard of this.shards) shard.queue.length = 0;
    return left;
  }

  private shardOf(partitionKey: string): Shard<TRecord> {
    return this.shards[shardIndexOf(partitionKey, this.shards.length)] as Shard<TRecord>;
  }

  /** Starts the shard's delivery loop if it is idle; resolves when its queue is empty. */
  private wake(shard: Shard<TRecord>): Promise<void> {
    shard.running ??= this.drain(shard).finally(() => {
      shard.running = undefined;
    });
    return shard.running;
  }

  private async drain(shard: Shard<TRecord>): Promise<void> {
    while (shard.queue.length > 0 && !this.abandoning) {
      await new Promise((resolve) => setTimeout(resolve, this.options.batchWindowMs));
      // A stop's grace may have ended while the batch waited for its turn: then it is left queued.
      const takeBatch = async () =>
        this.abandoning ? [] : this.deliver(shard, shard.queue.splice(0, this.options.batchSize));
      const retry = await (this.options.oneBatchAtATime ? this.turns(takeBatch) : takeBatch());
      // Retried records go back to the front of the shard, ahead of newer ones: order per shard holds.
      shard.queue.unshift(...retry);
    }
  }

  /** Delivers a batch; returns what must be delivered again: the batch from its first failed record on. */
  private async deliver(
    shard: Shard<TRecord>,
    batch: QueuedRecord<TRecord>[],
  ): Promise<QueuedRecord<TRecord>[]> {
    if (batch.length === 0) return [];
    for (const queued of batch) queued.attempts++;
    let failedFrom: number;
    try {
      const response = await this.binding.consume(this.binding.toEvent(batch.map(({ record }) => record)));
      failedFrom = this.firstFailed(batch, response ?? undefined);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (batch.length === 1) return this.retryOrDeadLetter(shard, batch, reason);
      // Bisect on error: each half is delivered on its own, in order; the second half waits for the first.
      for (const queued of batch) queued.attempts--;
      const middle = Math.ceil(batch.length / 2);
      const second = batch.slice(middle);
      const retry = await this.deliver(shard, batch.slice(0, middle));
      return retry.length > 0 ? [...retry, ...second] : this.deliver(shard, second);
    }
    if (failedFrom === -1) return [];
    return this.retryOrDeadLetter(shard, batch.slice(failedFrom), 'reported as a batch item failure');
  }

  /** The index of the first record the response fails, -1 for none. */
  private firstFailed(batch: QueuedRecord<TRecord>[], response: PartialBatchResponse | undefined): number {
    const failures = response?.batchItemFailures ?? [];
    if (failures.length === 0) return -1;
    // Lambda takes a failure without an item identifier as the failure of the whole batch.
    if (failures.some(({ itemIdentifier }) => !itemIdentifier)) return 0;
    const failed = new Set(failures.map(({ itemIdentifier }) => itemIdentifier));
    return batch.findIndex(({ record }) => failed.has(this.binding.itemIdentifier(record)));
  }

  /** Dead-letters the first record if it has had its attempts; returns the records to retry. */
  private retryOrDeadLetter(
    shard: Shard<TRecord>,
    records: QueuedRecord<TRecord>[],
    reason: string,
  ): QueuedRecord<TRecord>[] {
    const [first, ...rest] = records;
    if (!first || first.attempts < this.options.maxAttempts) return records;
    this.binding.deadLetter(first.record, shard.id, reason);
    return rest;
  }
}
