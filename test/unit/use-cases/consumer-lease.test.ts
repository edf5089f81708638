/**
 * The ingest consumer's lease (functions/use-cases/consumer-lease.ts) on an in-memory store
 * (test/support/consumer-lease-fakes.ts) under fake time: when a task takes it, how the holder renews it and
 * finds it lost, and that a task that lost it never saves a position.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CONSUMER_LEASE } from '#contracts/ingest-consumer';
import {
  ConsumerLease,
  type ConsumerLeaseOptions,
  type LeaseLoss,
  LeaseLost,
} from '#use-cases/consumer-lease';
import { InMemoryConsumerLeaseStore } from '../../support/consumer-lease-fakes.ts';

const { renewEveryMs, takeOverAfterMs, holderGivesUpAfterMs } = CONSUMER_LEASE;
/** 2026-11-27 15:00 UTC. */
const T0 = Date.parse('2026-11-27T15:00:00Z');
const HOUR = 3_600_000;

const leases: ConsumerLease[] = [];

function lease(
  store: InMemoryConsumerLeaseStore,
  holder: string,
  options: Partial<ConsumerLeaseOptions> = {},
) {
  const made = new ConsumerLease({ store, holder, ...options });
  leases.push(made);
  return made;
}

/** A promise's outcome once settled, read without awaiting it. */
function watch<T>(promise: Promise<T>) {
  const outcome: { settled: boolean; value?: T; error?: unknown } = { settled: false };
  promise.then(
    (value) => Object.assign(outcome, { settled: true, value }),
    (error: unknown) => Object.assign(outcome, { settled: true, error }),
  );
  return outcome;
}

/** Whether `lost` resolved, and with what. */
function lossOf(held: ConsumerLease) {
  const seen: { loss?: LeaseLoss } = {};
  void held.lost.then((loss) => {
    seen.loss = loss;
  });
  return seen;
}

const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);
const count = (store: InMemoryConsumerLeaseStore, call: string) =>
  store.calls.filter((c) => c === call).length;

beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
});

afterEach(() => {
  for (const made of leases.splice(0)) made.stop();
  vi.useRealTimers();
});

describe('taking the lease', () => {
  it('takes an absent lease at once, with no positions', async () => {
    const store = new InMemoryConsumerLeaseStore();
    const acquired = watch(lease(store, 'task-a').acquire());
    await advance(0);
    expect(acquired).toMatchObject({ settled: true, value: new Map() });
    expect(store.item).toEqual({ holder: 'task-a', renewedAtMs: T0, positions: {} });
  });

  it('takes a released lease at once, with the positions its last holder saved', async () => {
    const store = new InMemoryConsumerLeaseStore();
    store.item = { renewedAtMs: T0 - HOUR, positions: { 'shardId-000000000000': '49590' } };
    const acquired = watch(lease(store, 'task-a').acquire());
    await advance(0);
    expect(acquired.value).toEqual(new Map([['shardId-000000000000', '49590']]));
    expect(store.item?.holder).toBe('task-a');
  });

  it('does not take a live one, even with the holder’s clock an hour behind; takes it once renewals stop', async () => {
    const store = new InMemoryConsumerLeaseStore();
    const holder = lease(store, 'task-a', { nowMs: () => Date.now() - HOUR });
    await holder.acquire();
    const standby = watch(lease(store, 'task-b').acquire());
    await advance(30_000);
    expect(standby.settled).toBe(false);
    expect(store.item?.holder).toBe('task-a');
    expect(holder.holding).toBe(true);
    expect(count(store, 'take')).toBe(1);

    holder.stop(); // a crash: nothing released
    await advance(takeOverAfterMs - renewEveryMs);
    expect(standby.settled).toBe(false);
    await advance(2 * renewEveryMs);
    expect(standby.settled).toBe(true);
    expect(store.item?.holder).toBe('task-b');
  });

  it('takes a stale one only after watching it unchanged for takeOverAfterMs of its own clock', async () => {
    const store = new InMemoryConsumerLeaseStore();
    // Renewed "an hour from now" by the old holder's clock: only that it stopped changing counts.
    store.item = { holder: 'task-old', renewedAtMs: T0 + HOUR, positions: { 'shardId-000000000001': '7' } };
    const acquired = watch(lease(store, 'task-b').acquire());
    await advance(takeOverAfterMs - 1);
    expect(acquired.settled).toBe(false);
    expect(store.item?.holder).toBe('task-old');
    await advance(1);
    expect(acquired.value).toEqual(new Map([['shardId-000000000001', '7']]));
    expect(store.item).toEqual({
      holder: 'task-b',
      renewedAtMs: T0 + takeOverAfterMs,
      positions: { 'shardId-000000000001': '7' },
    });
  });

  it('watches again from a renewal it sees change', async () => {
    const store = new InMemoryConsumerLeaseStore();
    store.item = { holder: 'task-old', renewedAtMs: 1, positions: {} };
    const acquired = watch(lease(store, 'task-b').acquire());
    await advance(2_500);
    store.item = { ...store.item, renewedAtMs: 2 }; // a late renewal, seen at the look at 3 s
    await advance(3_000 + takeOverAfterMs - 2_500 - 1);
    expect(acquired.settled).toBe(false);
    await advance(1);
    expect(acquired.settled).toBe(true);
    expect(store.item?.holder).toBe('task-b');
  });

  it('returns the positions as they are after its take, a save landing between its look and its take included', async () => {
    const store = new InMemoryConsumerLeaseStore();
    store.item = { holder: 'task-old', renewedAtMs: 1, positions: { 'shardId-000000000000': '10' } };
    store.beforeTake = () => {
      store.item = { holder: 'task-old', renewedAtMs: 1, positions: { 'shardId-000000000000': '12' } };
    };
    const acquired = watch(lease(store, 'task-b').acquire());
    await advance(takeOverAfterMs);
    expect(acquired.value).toEqual(new Map([['shardId-000000000000', '12']]));
  });

  it('keeps looking through store errors, and stops looking when aborted', async () => {
    const store = new InMemoryConsumerLeaseStore();
    store.failing = { error: new Error('unreachable') };
    const acquired = watch(lease(store, 'task-a').acquire());
    await advance(3 * renewEveryMs);
    expect(acquired.settled).toBe(false);
    store.failing = undefined;
    await advance(renewEveryMs);
    expect(acquired.settled).toBe(true);

    const aborting = new AbortController();
    const standby = watch(lease(store, 'task-b').acquire(aborting.signal));
    await advance(renewEveryMs);
    aborting.abort(new Error('shutting down'));
    await advance(0);
    expect(standby.error).toEqual(new Error('shutting down'));
    const reads = count(store, 'read');
    await advance(10 * takeOverAfterMs);
    expect(count(store, 'read')).toBe(reads);
  });

  it('lets exactly one of two tasks racing for it take it', async () => {
    const store = new InMemoryConsumerLeaseStore();
    const a = lease(store, 'task-a');
    const b = lease(store, 'task-b');
    const acquiredA = watch(a.acquire());
    const acquiredB = watch(b.acquire());
    await advance(0);
    expect(count(store, 'take')).toBe(2);
    expect([acquiredA.settled, acquiredB.settled].filter(Boolean)).toHaveLength(1);
    await advance(20_000);
    expect([acquiredA.settled, acquiredB.settled].filter(Boolean)).toHaveLength(1);
    expect([a.holding, b.holding].filter(Boolean)).toHaveLength(1);
    expect(store.item?.holder).toBe(acquiredA.settled ? 'task-a' : 'task-b');
  });
});

describe('holding the lease', () => {
  it('renews it every renewEveryMs', async () => {
    const store = new InMemoryConsumerLeaseStore();
    const held = lease(store, 'task-a');
    const lost = lossOf(held);
    await held.acquire();
    await advance(5 * renewEveryMs);
    expect(count(store, 'renew')).toBe(5);
    expect(store.item).toMatchObject({ holder: 'task-a', renewedAtMs: T0 + 5 * renewEveryMs });
    expect(held.holding).toBe(true);
    expect(lost.loss).toBeUndefined();
  });

  it('counts it lost when a renewal finds another holder, and stops renewing', async () => {
    const store = new InMemoryConsumerLeaseStore();
    const held = lease(store, 'task-a');
    const lost = lossOf(held);
    await held.acquire();
    await advance(1_500);
    store.item = { holder: 'task-b', renewedAtMs: 99, positions: {} };
    await advance(renewEveryMs / 2);
    expect(lost.loss).toEqual({ reason: 'taken-over' });
    expect(await held.lost).toEqual({ reason: 'taken-over' });
    expect(held.holding).toBe(false);
    const renewals = count(store, 'renew');
    await advance(10 * renewEveryMs);
    expect(count(store, 'renew')).toBe(renewals);
    expect(store.item).toEqual({ holder: 'task-b', renewedAtMs: 99, positions: {} });
  });

  it('gives up after holderGivesUpAfterMs of failing renewals, and then saves nothing though still stored as holder', async () => {
    const store = new InMemoryConsumerLeaseStore();
    const held = lease(store, 'task-a');
    const lost = lossOf(held);
    await held.acquire();
    await advance(2_500); // renewals at 1 s and 2 s landed
    const error = new Error('throttled');
    store.failing = { error, only: ['renew'] };
    await advance(2_000 + holderGivesUpAfterMs - 2_500 - 1);
    expect(lost.loss).toBeUndefined();
    expect(held.holding).toBe(true);
    await advance(1);
    expect(lost.loss).toEqual({ reason: 'not-renewed', error });

    store.failing = undefined;
    expect(store.item?.holder).toBe('task-a');
    await expect(held.checkpoints().save(new Map([['shardId-000000000000', '5']]))).rejects.toEqual(
      new LeaseLost('task-a', 'not-renewed'),
    );
    expect(count(store, 'savePositions')).toBe(0);
    expect(store.item?.positions).toEqual({});
  });
});

describe('checkpoints', () => {
  it('saves positions while held; after another task took the lease, throws LeaseLost and never writes', async () => {
    const store = new InMemoryConsumerLeaseStore();
    const held = lease(store, 'task-a');
    await held.acquire();
    const checkpoints = held.checkpoints();
    await checkpoints.save(new Map([['shardId-000000000000', '10']]));
    await checkpoints.save(new Map([['shardId-000000000001', '20']]));
    expect(store.item?.positions).toEqual({ 'shardId-000000000000': '10', 'shardId-000000000001': '20' });

    // Taken over before any renewal of task-a found out.
    store.item = { holder: 'task-b', renewedAtMs: 1, positions: { ...store.item?.positions } };
    const error = await checkpoints.save(new Map([['shardId-000000000000', '11']])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeaseLost);
    expect(error).toMatchObject({ reason: 'taken-over' });
    expect(await held.lost).toEqual({ reason: 'taken-over' });
    const saves = count(store, 'savePositions');
    await expect(checkpoints.save(new Map([['shardId-000000000000', '12']]))).rejects.toBeInstanceOf(
      LeaseLost,
    );
    expect(count(store, 'savePositions')).toBe(saves);
    expect(store.item?.positions).toEqual({ 'shardId-000000000000': '10', 'shardId-000000000001': '20' });
  });

  it('throws LeaseLost before the lease is taken', async () => {
    const store = new InMemoryConsumerLeaseStore();
    await expect(
      lease(store, 'task-a')
        .checkpoints()
        .save(new Map([['s', '1']])),
    ).rejects.toEqual(new LeaseLost('task-a', 'not-held'));
    expect(store.calls).toEqual([]);
  });
});

describe('releasing the lease', () => {
  it('lets a standby take it at its next look, with the positions saved', async () => {
    const store = new InMemoryConsumerLeaseStore();
    const held = lease(store, 'task-a');
    const lost = lossOf(held);
    await held.acquire();
    await held.checkpoints().save(new Map([['shardId-000000000000', '10']]));
    const standby = watch(lease(store, 'task-b').acquire());
    await advance(2 * takeOverAfterMs);
    expect(standby.settled).toBe(false);

    await held.release();
    expect(store.item?.holder).toBeUndefined();
    await advance(renewEveryMs);
    expect(standby.value).toEqual(new Map([['shardId-000000000000', '10']]));
    expect(store.item?.holder).toBe('task-b');
    expect(held.holding).toBe(false);
    expect(lost.loss).toBeUndefined();
    await expect(held.checkpoints().save(new Map([['shardId-000000000000', '11']]))).rejects.toEqual(
      new LeaseLost('task-a', 'not-held'),
    );
    expect(store.item?.positions).toEqual({ 'shardId-000000000000': '10' });
  });
});
