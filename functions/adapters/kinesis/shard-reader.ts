import {
  type KinesisClient,
  ListShardsCommand,
  type Shard,
  type StartingPosition,
  SubscribeToShardCommand,
  type SubscribeToShardEvent,
  type SubscribeToShardEventStream,
} from '@aws-sdk/client-kinesis';
import { SHARD_READING } from '#contracts/ingest-consumer';
import { ShardLineage, type ShardParents } from '#domain/market-data/shard-lineage';
import { type Backoff, backoffDelayMs } from '#domain/retry/backoff';
import type { ShardRecord } from '#use-cases/ingest-windows';

/** SHARD_READING's timings, any values. */
export type ShardReadingTimings = { readonly [key in keyof typeof SHARD_READING]: number };

export interface ShardReaderOptions {
  readonly client: KinesisClient;
  readonly streamArn: string;
  /** The enhanced fan-out consumer the shards are subscribed through. */
  readonly consumerArn: string;
  /** Where each shard starts: after this sequence number; a shard absent here starts at TRIM_HORIZON. */
  readonly positions: ReadonlyMap<string, string>;
  /**
   * Hands a shard's records over, in the shard's order; the reader waits for it before reading that shard
   * further (back-pressure). A rejection stops the reader: run() rejects with it once the rest settled.
   */
  readonly deliver: (records: ShardRecord[]) => Promise<void>;
  readonly log?: (message: string, fields?: Record<string, unknown>) => void;
  /** The shard reading's timings (functions/contracts/ingest-consumer.ts); tests pass shorter ones. */
  readonly timings?: Partial<ShardReadingTimings>;
}

/**
 * Failures an operator has to fix (the consumer deleted, its permissions, the stream's key, a position that
 * is not the shard's): retrying sooner does not help, so they are retried at the longest wait and logged as
 * errors, and the process keeps running for its alarms to be seen.
 */
const OPERATOR_FAILURES = new Set([
  'ResourceNotFoundException',
  'AccessDeniedException',
  'InvalidArgumentException',
  'KMSAccessDeniedException',
  'KMSDisabledException',
  'KMSInvalidStateException',
  'KMSNotFoundException',
  'KMSOptInRequired',
]);

/** A subscription that brought no event for `silentAfterMs`: a half-open HTTP/2 stream, abandoned. */
class SubscriptionSilent extends Error {
  override readonly name = 'SubscriptionSilent';
}

/** The records could not be handed over: the host's failure, not the stream's, so it is not retried here. */
class DeliveryFailed extends Error {
  constructor(readonly failure: unknown) {
    super('the records could not be delivered');
  }
}

const ABORTED = Symbol('aborted');

/** Resolves with ABORTED once the signal aborts. */
function abortedBy(signal: AbortSignal): Promise<typeof ABORTED> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(ABORTED);
    else signal.addEventListener('abort', () => resolve(ABORTED), { once: true });
  });
}

/**
 * The call's outcome, or ABORTED as soon as the subscription is abandoned: a call on a half-open connection
 * may never settle, whatever its abort signal, and nothing waits for it after that.
 */
function raced<T>(call: Promise<T>, aborted: Promise<typeof ABORTED>): Promise<T | typeof ABORTED> {
  call.catch(() => {});
  return Promise.race([call, aborted]);
}

/** Whether `sequenceNumber` is past `than` (both decimal strings of up to 129 digits); true when either is not. */
function isPast(sequenceNumber: string, than: string | undefined): boolean {
  if (than === undefined || !/^\d+$/.test(sequenceNumber) || !/^\d+$/.test(than)) return true;
  return BigInt(sequenceNumber) > BigInt(than);
}

function nameOf(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function parentsOf(shard: Shard): ShardParents {
  return {
    shardId: shard.ShardId ?? '',
    parentShardIds: [shard.ParentShardId, shard.AdjacentParentShardId].filter(
      (id): id is string => id !== undefined,
    ),
  };
}

/**
 * The subscription's event, undefined for an event type this SDK does not know (skipped, as the SDK skips
 * them); an exception event (the SDK throws most of them itself) is thrown.
 */
function eventOf(member: SubscribeToShardEventStream): SubscribeToShardEvent | undefined {
  if (member.SubscribeToShardEvent) return member.SubscribeToShardEvent;
  const [name, value] = Object.entries(member)[0] ?? ['UnknownEvent', undefined];
  if (name === '$unknown') return undefined;
  if (value instanceof Error) throw value;
  const message = (value as { message?: string } | undefined)?.message ?? name;
  throw Object.assign(new Error(message), { name });
}

/** One shard being read. */
interface ShardState {
  readonly shardId: string;
  /** The sequence number to subscribe after; none: the shard's TRIM_HORIZON. */
  resumeAfter: string | undefined;
  /** Failures since the last event, for the backoff. */
  failures: number;
  /** The latest event's MillisBehindLatest. */
  behindMs: number;
  /** The subscription in progress, aborted to abandon it. */
  controller: AbortController | undefined;
}

/** How one subscription ended. */
type Outcome =
  | { readonly kind: 'renew'; readonly events: number }
  | { readonly kind: 'ended'; readonly children: ShardParents[] }
  | { readonly kind: 'stopped' };

/**
 * Reads every shard of the trades stream through the ingest's enhanced fan-out consumer, for the windowed
 * ingest consumer (docs/adr/0026-long-running-ingest-consumer.md, step 3): its service hands each shard's
 * records to the window host (functions/containers/ingest-consumer/window-host.ts) through `deliver`.
 *
 * - **Shards.** Listed once at the start (ListShards by the stream's ARN, page after page; every shard within
 *   the retention period, closed parents included), then read concurrently, each through `SubscribeToShard`,
 *   one event at a time: an event's records are delivered, in order, before the next event is read.
 * - **Renewal.** A subscription lasts at most 5 minutes (Amazon Kinesis Data Streams API Reference,
 *   SubscribeToShard). When it ends, the shard is subscribed again AFTER_SEQUENCE_NUMBER of its last record
 *   delivered, or of the ContinuationSequenceNumber of a later event that brought no record: nothing is
 *   skipped and nothing is read twice (AT_SEQUENCE_NUMBER would bring the last record again). One that ends
 *   without bringing an event is waited for as a failure, so as not to call in a tight loop.
 * - **Failures.** A failed subscription (ResourceInUseException when made again within 5 seconds of the one
 *   before, LimitExceededException past one call a second per shard, InternalFailureException, a stream
 *   error) is made again from the same place after a backoff doubling from `retryBaseMs` to `retryMaxMs`.
 *   What an operator must fix (the consumer gone, access denied) is logged and retried at `retryMaxMs` for
 *   as long as it lasts: the process does not crash. A ResourceNotFoundException for a shard the stream no
 *   longer lists means the shard expired: it counts as ended.
 * - **Half-open connections.** Kinesis sends an event every few seconds, records or not. A subscription that
 *   brings none for `silentAfterMs` (an HTTP/2 stream that went quiet without closing) is aborted (its abort
 *   signal closes the stream) and made again. The wait is not counted while a delivery holds the shard.
 * - **Resharding.** An event without a ContinuationSequenceNumber is the shard's last: its records are
 *   delivered, then each child it names is read once all its parents ended (a merge's child waits for both)
 *   (functions/domain/market-data/shard-lineage.ts); a last event naming none leaves them to the listing. A
 *   listed shard whose parents are still read waits for them; a parent the stream no longer lists does not
 *   hold a child back, and one a child of which has a position is not read again.
 * - **Stop.** stop() abandons every subscription and wait at once; run() resolves once the deliveries in
 *   flight settled.
 */
export class ShardReader {
  private readonly timings: ShardReadingTimings;
  private readonly backoff: Backoff;
  private readonly log: (message: string, fields?: Record<string, unknown>) => void;
  private readonly shards = new Map<string, ShardState>();
  private readonly tasks = new Map<string, Promise<void>>();
  private readonly wakers = new Set<() => void>();
  private readonly stopping = new AbortController();
  private readonly utf8 = new TextDecoder();
  private lineage = new ShardLineage([]);
  private started = false;
  private failure: { readonly error: unknown } | undefined;

  constructor(private readonly options: ShardReaderOptions) {
    this.timings = { ...SHARD_READING, ...options.timings };
    this.backoff = { baseMs: this.timings.retryBaseMs, capMs: this.timings.retryMaxMs, jitter: 'equal' };
    this.log = options.log ?? (() => {});
  }

  /** Reads every shard until stop(); rejects only when a delivery failed. */
  async run(): Promise<void> {
    if (this.started) throw new Error('a ShardReader runs once');
    this.started = true;
    const listed = await this.listWithRetries();
    if (listed) {
      this.lineage = new ShardLineage(listed.map(parentsOf), this.options.positions.keys());
      this.log('shards listed', { shards: listed.length });
      this.startReady();
    }
    while (this.tasks.size > 0) await Promise.race(this.tasks.values());
    if (this.failure) throw this.failure.error;
  }

  /** Ends every subscription and wait; run() resolves once the deliveries in flight settled. */
  stop(): void {
    if (this.stopping.signal.aborted) return;
    this.stopping.abort(new Error('the shard reader stopped'));
    for (const shard of this.shards.values()) shard.controller?.abort(this.stopping.signal.reason);
    for (const wake of [...this.wakers]) wake();
  }

  /** The largest MillisBehindLatest of the shards' latest events (0 before any), for the lag metric. */
  behindMs(): number {
    let behind = 0;
    for (const shard of this.shards.values()) behind = Math.max(behind, shard.behindMs);
    return behind;
  }

  private get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  private startReady(): void {
    for (const shardId of this.lineage.takeReady()) {
      const shard: ShardState = {
        shardId,
        resumeAfter: this.options.positions.get(shardId),
        failures: 0,
        behindMs: 0,
        controller: undefined,
      };
      this.shards.set(shardId, shard);
      const task = this.readShard(shard)
        .then(async (children) => {
          this.shards.delete(shardId);
          if (children === undefined) return;
          this.lineage.end(shardId);
          // A last event names the children; should one not, the listing does.
          const named = children.length > 0 ? children : await this.listedChildrenOf(shardId);
          this.lineage.add(named);
          this.log('shard ended', { shardId, children: named.map((child) => child.shardId) });
          if (!this.stopped) this.startReady();
        })
        .catch((error: unknown) => this.fail(error))
        .finally(() => this.tasks.delete(shardId));
      this.tasks.set(shardId, task);
    }
  }

  /** Reads the shard to its end (its children) or until stop() (undefined). */
  private async readShard(shard: ShardState): Promise<ShardParents[] | undefined> {
    while (!this.stopped) {
      try {
        const outcome = await this.subscribe(shard);
        if (outcome.kind === 'stopped') return undefined;
        if (outcome.kind === 'ended') return outcome.children;
        if (outcome.events > 0) continue;
        // Ended at once, without an event: waited for as a failure, not to make calls in a tight loop.
        const waitMs = this.retryWaitMs(shard.failures++);
        this.log('shard subscription ended without an event', {
          level: 'warn',
          shardId: shard.shardId,
          waitMs,
        });
        await this.pause(waitMs);
      } catch (error) {
        if (error instanceof DeliveryFailed) {
          this.fail(error.failure);
          return undefined;
        }
        if (this.stopped) return undefined;
        const name = nameOf(error);
        if (name === 'ResourceNotFoundException' && (await this.isUnlisted(shard.shardId))) {
          this.log('shard no longer listed (expired): counted as ended', {
            level: 'warn',
            shardId: shard.shardId,
          });
          return [];
        }
        const operator = OPERATOR_FAILURES.has(name);
        const waitMs = operator ? this.timings.retryMaxMs : this.retryWaitMs(shard.failures);
        shard.failures++;
        this.log(operator ? 'shard subscription refused' : 'shard subscription failed', {
          level: operator ? 'error' : 'warn',
          shardId: shard.shardId,
          error: name,
          detail: messageOf(error),
          after: shard.resumeAfter ?? 'TRIM_HORIZON',
          waitMs,
        });
        await this.pause(waitMs);
      }
    }
    return undefined;
  }

  /** One subscription, from the shard's position, until it ends, fails, goes silent, or the reader stops. */
  private async subscribe(shard: ShardState): Promise<Outcome> {
    const controller = new AbortController();
    shard.controller = controller;
    const aborted = abortedBy(controller.signal);
    let watchdog: NodeJS.Timeout | undefined;
    const watch = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(
        () => controller.abort(new SubscriptionSilent(`no event for ${this.timings.silentAfterMs} ms`)),
        this.timings.silentAfterMs,
      );
    };
    const abandoned = (): Outcome => {
      if (this.stopped) return { kind: 'stopped' };
      throw controller.signal.reason;
    };
    let iterator: AsyncIterator<SubscribeToShardEventStream> | undefined;
    try {
      if (this.stopped) return { kind: 'stopped' };
      const position: StartingPosition =
        shard.resumeAfter === undefined
          ? { Type: 'TRIM_HORIZON' }
          : { Type: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: shard.resumeAfter };
      watch();
      const output = await raced(
        this.options.client.send(
          new SubscribeToShardCommand({
            ConsumerARN: this.options.consumerArn,
            ShardId: shard.shardId,
            StartingPosition: position,
          }),
          { abortSignal: controller.signal },
        ),
        aborted,
      );
      if (output === ABORTED) return abandoned();
      iterator = output.EventStream?.[Symbol.asyncIterator]();
      if (!iterator) throw new Error('SubscribeToShard brought no event stream');
      let events = 0;
      for (;;) {
        const next = await raced(iterator.next(), aborted);
        if (next === ABORTED) return abandoned();
        if (next.done) return { kind: 'renew', events };
        clearTimeout(watchdog);
        events++;
        const event = eventOf(next.value);
        const children = event ? await this.take(shard, event) : undefined;
        if (children) return { kind: 'ended', children };
        if (this.stopped) return { kind: 'stopped' };
        watch();
      }
    } finally {
      clearTimeout(watchdog);
      shard.controller = undefined;
      // Whichever way it ended, its HTTP/2 stream is closed and its iterator released (not waited for: on a
      // half-open connection neither may ever settle).
      if (!controller.signal.aborted) controller.abort(new Error('subscription left'));
      iterator?.return?.().catch(() => {});
    }
  }

  /** Delivers an event's records and moves the shard's position past them; the children when it is the last. */
  private async take(shard: ShardState, event: SubscribeToShardEvent): Promise<ShardParents[] | undefined> {
    shard.failures = 0;
    if (event.MillisBehindLatest !== undefined) shard.behindMs = event.MillisBehindLatest;
    const records: ShardRecord[] = (event.Records ?? []).map((record) => ({
      shardId: shard.shardId,
      partitionKey: record.PartitionKey ?? '',
      sequenceNumber: record.SequenceNumber ?? '',
      data: this.utf8.decode(record.Data ?? new Uint8Array()),
    }));
    if (records.length > 0) {
      try {
        await this.options.deliver(records);
      } catch (error) {
        throw new DeliveryFailed(error);
      }
    }
    const reached = records.at(-1)?.sequenceNumber ?? event.ContinuationSequenceNumber;
    if (reached && isPast(reached, shard.resumeAfter)) shard.resumeAfter = reached;
    if (event.ContinuationSequenceNumber) return undefined;
    return (event.ChildShards ?? []).map((child) => ({
      shardId: child.ShardId ?? '',
      parentShardIds: child.ParentShards ?? [],
    }));
  }

  /** Every shard of the stream, page after page, retried until it is listed or the reader stops. */
  private async listWithRetries(): Promise<Shard[] | undefined> {
    for (let attempt = 0; !this.stopped; attempt++) {
      try {
        return await this.listShards();
      } catch (error) {
        if (this.stopped) break;
        const waitMs = this.retryWaitMs(attempt);
        this.log('shards not listed', {
          level: 'warn',
          error: nameOf(error),
          detail: messageOf(error),
          waitMs,
        });
        await this.pause(waitMs);
      }
    }
    return undefined;
  }

  /**
   * One listing. No ShardFilter: the default (FROM_TRIM_HORIZON) lists the closed shards within the retention
   * period too, which may still hold records to read. A page after the first names only its NextToken (a
   * token is good for 300 seconds; an expired one fails this listing, and the retry starts again).
   */
  private async listShards(): Promise<Shard[]> {
    const stopped = abortedBy(this.stopping.signal);
    const shards: Shard[] = [];
    let nextToken: string | undefined;
    do {
      const page = await raced(
        this.options.client.send(
          new ListShardsCommand(nextToken ? { NextToken: nextToken } : { StreamARN: this.options.streamArn }),
          { abortSignal: this.stopping.signal },
        ),
        stopped,
      );
      if (page === ABORTED) throw this.stopping.signal.reason;
      shards.push(...(page.Shards ?? []));
      nextToken = page.NextToken;
    } while (nextToken);
    return shards;
  }

  /** Whether the stream no longer lists the shard (false when it cannot be listed now). */
  private async isUnlisted(shardId: string): Promise<boolean> {
    try {
      return !(await this.listShards()).some((shard) => shard.ShardId === shardId);
    } catch {
      return false;
    }
  }

  /** The listed children of an ended shard whose last event named none. */
  private async listedChildrenOf(shardId: string): Promise<ShardParents[]> {
    const listed = (await this.listWithRetries()) ?? [];
    return listed.map(parentsOf).filter(({ parentShardIds }) => parentShardIds.includes(shardId));
  }

  private retryWaitMs(attempt: number): number {
    return backoffDelayMs(attempt, Math.random(), this.backoff);
  }

  /** Waits `ms`, or less if the reader stops meanwhile. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.stopped) {
        resolve();
        return;
      }
      const wake = () => {
        clearTimeout(timer);
        this.wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.wakers.add(wake);
    });
  }

  /** The first delivery failure stops the reader; run() rejects with it. */
  private fail(error: unknown): void {
    this.failure ??= { error };
    this.log('shard reader stopping: records not delivered', { level: 'error', detail: messageOf(error) });
    this.stop();
  }
}
