import { CONSUMER_LEASE } from '#contracts/ingest-consumer';
import type { ShardCheckpoints } from './ingest-windows.ts';

/**
 * The consumer's lease as stored: one item of the consumerLeases table (functions/contracts/tables.ts), written
 * only through the conditions of `ConsumerLeaseStore`.
 */
export interface LeaseItem {
  /** The task holding it; absent once released. */
  readonly holder?: string;
  /** The holder's own clock at its take or last renewal: other tasks only watch it change, never compare it. */
  readonly renewedAtMs: number;
  /** Per shard id, the sequence number of its last record whose every trade is committed. */
  readonly positions: Readonly<Record<string, string>>;
}

/**
 * Where the lease is kept (functions/adapters/dynamo/consumer-lease-store.ts). Every write is conditional, so
 * two tasks that both think they hold the lease can never both write: the store decides.
 */
export interface ConsumerLeaseStore {
  /** The lease as stored now (a consistent read); undefined when it was never taken. */
  read(): Promise<LeaseItem | undefined>;
  /**
   * Takes the lease for `holder`, renewed at `nowMs`, keeping the stored positions. Lands only while the item
   * is still exactly as `seen`: absent, released, or the same holder with the same renewal; false otherwise.
   */
  take(holder: string, nowMs: number, seen: LeaseItem | undefined): Promise<boolean>;
  /** Moves the renewal to `nowMs`; false when `holder` no longer holds it. */
  renew(holder: string, nowMs: number): Promise<boolean>;
  /** Sets the given shards' positions, the others kept; false when `holder` no longer holds it. */
  savePositions(holder: string, positions: ReadonlyMap<string, string>): Promise<boolean>;
  /** Removes the holder, if it is still `holder`, so a standby takes the lease at its next look. */
  release(holder: string): Promise<void>;
}

export interface ConsumerLeaseTimings {
  /** How often the holder renews, and a standby looks. */
  readonly renewEveryMs: number;
  /** How long a standby watches the same holder and renewal before it takes the lease. */
  readonly takeOverAfterMs: number;
  /** How long the holder goes on without a renewal that landed before it counts the lease lost. */
  readonly holderGivesUpAfterMs: number;
}

export interface ConsumerLeaseOptions {
  readonly store: ConsumerLeaseStore;
  /**
   * This process's task id. A process started again gets a new one and waits like any standby: a holder id
   * found in the store is never taken as this process's own.
   */
  readonly holder: string;
  /** This task's clock, Unix ms; only ever compared with itself. */
  readonly nowMs?: () => number;
  readonly timings?: Partial<ConsumerLeaseTimings>;
}

/** Why a holder stopped holding: another task took the lease, or its renewals did not land in time. */
export type LeaseLossReason = 'taken-over' | 'not-renewed';

export interface LeaseLoss {
  readonly reason: LeaseLossReason;
  /** The last renewal's error, when they failed. */
  readonly error?: unknown;
}

/** A write refused because this task does not hold the lease (lost, released, stopped or not yet taken). */
export class LeaseLost extends Error {
  override readonly name = 'LeaseLost';

  constructor(
    readonly holder: string,
    readonly reason: LeaseLossReason | 'not-held',
  ) {
    super(`The consumer lease is not held by ${holder} (${reason})`);
  }
}

type LeaseState = 'idle' | 'acquiring' | 'holding' | 'lost' | 'ended';

/**
 * The ingest consumer's lease (docs/adr/0026-long-running-ingest-consumer.md): one task holds it and reads
 * every shard, a standby waits to take it over, and shard positions are saved only by the holder.
 *
 * Clocks are never compared across tasks: a task's `renewedAtMs` is only a value that changes while it is
 * alive. A standby takes the lease once it has watched the same holder and renewal for `takeOverAfterMs` of
 * its own clock; the holder counts the lease lost once no renewal landed for `holderGivesUpAfterMs` of its own,
 * which is shorter, so a holder cut off from the store stops before a standby can take over. Whatever the
 * timings, the store's conditions are what keep two holders from both writing.
 */
export class ConsumerLease {
  /** Resolves if the lease is lost while held; never after `release()` or `stop()`. */
  readonly lost: Promise<LeaseLoss>;
  private resolveLost: (loss: LeaseLoss) => void = () => {};
  private state: LeaseState = 'idle';
  private loss: LeaseLoss | undefined;
  private readonly store: ConsumerLeaseStore;
  private readonly holder: string;
  private readonly nowMs: () => number;
  private readonly timings: ConsumerLeaseTimings;
  /** Ends every wait once the lease is lost, released or stopped. */
  private readonly ending = new AbortController();
  /** This task's clock when the last renewal (or the take) that landed was sent. */
  private renewedAtMs = 0;
  /** The last `renewedAtMs` written: each write moves it on, even with a clock stepped back. */
  private writtenAtMs = Number.NEGATIVE_INFINITY;
  private renewalError: unknown;
  private giveUpTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(options: ConsumerLeaseOptions) {
    this.store = options.store;
    this.holder = options.holder;
    this.nowMs = options.nowMs ?? Date.now;
    this.timings = { ...CONSUMER_LEASE, ...options.timings };
    this.lost = new Promise((resolve) => {
      this.resolveLost = resolve;
    });
  }

  get holding(): boolean {
    return this.state === 'holding';
  }

  /**
   * Waits until this task holds the lease, looking every `renewEveryMs`, and returns the stored positions; it
   * renews the lease from then on. `signal` ends the wait (the promise rejects with its reason). Errors of the
   * store while waiting are waited out: a standby keeps looking.
   */
  async acquire(signal?: AbortSignal): Promise<ReadonlyMap<string, string>> {
    if (this.state !== 'idle') throw new Error(`The consumer lease is acquired once (it is ${this.state})`);
    this.state = 'acquiring';
    const waiting = signal ? AbortSignal.any([signal, this.ending.signal]) : this.ending.signal;
    let watched: { readonly seen: LeaseItem; readonly sinceMs: number } | undefined;
    for (;;) {
      waiting.throwIfAborted();
      const nowMs = this.nowMs();
      let taken = false;
      try {
        const seen = await this.store.read();
        if (seen?.holder !== undefined && !sameRenewal(watched?.seen, seen))
          watched = { seen, sinceMs: nowMs };
        const stale = watched !== undefined && nowMs - watched.sinceMs >= this.timings.takeOverAfterMs;
        if (seen?.holder === undefined || stale)
          taken = await this.store.take(this.holder, this.written(nowMs), seen);
      } catch {
        // A take whose answer was lost may have landed: the store then shows this holder unchanged, and this
        // task takes it again after takeOverAfterMs, as any standby would.
      }
      if (taken) {
        if (waiting.aborted) {
          await this.store.release(this.holder).catch(() => {});
          waiting.throwIfAborted();
        }
        this.state = 'holding';
        this.renewed(nowMs);
        void this.renewing(nowMs);
        return this.positionsAfterTake();
      }
      await pause(this.timings.renewEveryMs, waiting);
    }
  }

  /**
   * The shard positions to save through: each save lands only while this task holds the lease, and throws
   * `LeaseLost` otherwise, so no task that lost the lease ever moves a position.
   */
  checkpoints(): ShardCheckpoints {
    return {
      save: async (positions) => {
        this.assertHeld();
        if (positions.size === 0) return;
        if (await this.store.savePositions(this.holder, positions)) return;
        this.lose({ reason: 'taken-over' });
        this.assertHeld();
      },
    };
  }

  /** Stops renewing and releases the lease, so a standby takes it at its next look. */
  async release(): Promise<void> {
    const held = this.state === 'holding';
    this.stop();
    if (held) await this.store.release(this.holder);
  }

  /** Stops renewing (or waiting) without releasing: a standby takes the lease after `takeOverAfterMs`. */
  stop(): void {
    if (this.state !== 'lost') this.state = 'ended';
    clearTimeout(this.giveUpTimer);
    this.ending.abort(new Error('The consumer lease was stopped'));
  }

  /**
   * The positions, read again once taken: the take is conditioned on the holder and its renewal, not on the
   * positions, so a save the last holder made between this task's look and its take is in this read, and one
   * made after the take is refused.
   */
  private async positionsAfterTake(): Promise<ReadonlyMap<string, string>> {
    for (;;) {
      this.assertHeld();
      try {
        const item = await this.store.read();
        if (item?.holder === this.holder) return new Map(Object.entries(item.positions));
        this.lose({ reason: 'taken-over' });
      } catch {
        // Read again at the next beat; the renewals go on meanwhile, and give up as they would.
      }
      await pause(this.timings.renewEveryMs, this.ending.signal);
    }
  }

  /** Renews every `renewEveryMs` from the take, one renewal at a time, until the lease is lost or ended. */
  private async renewing(sentAtMs: number): Promise<void> {
    let lastSentMs = sentAtMs;
    while (this.state === 'holding') {
      await pause(Math.max(0, lastSentMs + this.timings.renewEveryMs - this.nowMs()), this.ending.signal);
      if (this.state !== 'holding') return;
      lastSentMs = this.nowMs();
      try {
        if (await this.store.renew(this.holder, this.written(lastSentMs))) this.renewed(lastSentMs);
        else this.lose({ reason: 'taken-over' });
      } catch (error) {
        // The give-up timer counts from the last renewal that landed, whether this one failed or hangs.
        this.renewalError = error;
      }
    }
  }

  /** A renewal sent at `sentAtMs` landed: the holder gives up `holderGivesUpAfterMs` after it. */
  private renewed(sentAtMs: number): void {
    if (this.state !== 'holding') return;
    this.renewedAtMs = sentAtMs;
    clearTimeout(this.giveUpTimer);
    this.giveUpTimer = setTimeout(
      () => this.lose({ reason: 'not-renewed', error: this.renewalError }),
      Math.max(0, sentAtMs + this.timings.holderGivesUpAfterMs - this.nowMs()),
    );
  }

  private lose(loss: LeaseLoss): void {
    if (this.state !== 'holding') return;
    this.state = 'lost';
    this.loss = loss;
    clearTimeout(this.giveUpTimer);
    this.ending.abort(new LeaseLost(this.holder, loss.reason));
    this.resolveLost(loss);
  }

  /**
   * Throws `LeaseLost` unless this task holds the lease. The give-up deadline is checked here too: a loop
   * kept busy past it has not run the timer yet.
   */
  private assertHeld(): void {
    if (this.state === 'holding' && this.nowMs() - this.renewedAtMs >= this.timings.holderGivesUpAfterMs)
      this.lose({ reason: 'not-renewed', error: this.renewalError });
    if (this.state !== 'holding') throw new LeaseLost(this.holder, this.loss?.reason ?? 'not-held');
  }

  private written(nowMs: number): number {
    this.writtenAtMs = Math.max(nowMs, this.writtenAtMs + 1);
    return this.writtenAtMs;
  }
}

function sameRenewal(a: LeaseItem | undefined, b: LeaseItem): boolean {
  return a !== undefined && a.holder === b.holder && a.renewedAtMs === b.renewedAtMs;
}

/** Waits `ms`, or less once `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
