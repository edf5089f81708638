import { describe, expect, it, vi } from 'vitest';
import {
  IngestConsumerService,
  type LeaseHolder,
  type ShardReading,
} from '#containers/ingest-consumer/service';
import type { TradeWindow } from '#handlers/ingest/window-event';
import type { ShardRecord } from '#use-cases/ingest-windows';

const record = (shardId: string, sequenceNumber: string): ShardRecord => ({
  shardId,
  sequenceNumber,
  partitionKey: 'AAPL',
  data: `trade ${sequenceNumber}`,
});

/** A lease this test hands over, loses or never grants; what happened to it is recorded. */
function fakeLease(stored: ReadonlyMap<string, string>) {
  let grant: () => void = () => undefined;
  let lose: () => void = () => undefined;
  const granted = new Promise<void>((resolve) => {
    grant = resolve;
  });
  const events: string[] = [];
  const lease: LeaseHolder = {
    acquire: (signal) =>
      new Promise((resolve, reject) => {
        signal.addEventListener('abort', () => reject(new Error('aborted')));
        granted.then(() => resolve(stored));
      }),
    lost: new Promise((resolve) => {
      lose = () => resolve(new Error('taken over'));
    }),
    checkpoints: () => ({
      save: async (positions) => {
        events.push(`saved ${[...positions].map(([shard, seq]) => `${shard}@${seq}`).join(',')}`);
      },
    }),
    release: async () => {
      events.push('released');
    },
  };
  return { lease, events, grant: () => grant(), lose: () => lose() };
}

/** Shard reading that delivers what the test gives it, from the positions it was started at. */
function fakeReading() {
  const started: ReadonlyMap<string, string>[] = [];
  let deliver: (records: ShardRecord[]) => Promise<void> = async () => undefined;
  let stopped = false;
  let finish: () => void = () => undefined;
  let fail: (error: Error) => void = () => undefined;
  const readShards = (positions: ReadonlyMap<string, string>, into: typeof deliver): ShardReading => {
    started.push(positions);
    deliver = into;
    return {
      run: () =>
        new Promise<void>((resolve, reject) => {
          finish = resolve;
          fail = reject;
        }),
      stop: () => {
        stopped = true;
        finish();
      },
      behindMs: () => 1_234,
    };
  };
  return {
    readShards,
    started,
    deliver: (records: ShardRecord[]) => deliver(records),
    isStopped: () => stopped,
    /** Ends the reading on its own, failed. */
    fail: (error: Error) => fail(error),
  };
}

function setUp() {
  const lease = fakeLease(new Map([['shard-1', '41']]));
  const reading = fakeReading();
  const windows: TradeWindow[] = [];
  const metrics = { behind: vi.fn(), leaseTaken: vi.fn() };
  const service = new IngestConsumerService({
    lease: lease.lease,
    readShards: reading.readShards,
    windowHandler: (checkpoints) => async (window) => {
      windows.push(window);
      const last = window.records.at(-1);
      if (last) await checkpoints.save(new Map([[last.shardId, last.sequenceNumber]]));
      return { backlog: 0 };
    },
    metrics,
    log: { info: () => undefined, warn: () => undefined },
    windowMs: 0,
    reportEveryMs: 50,
  });
  return { service, lease, reading, windows, metrics };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('IngestConsumerService', () => {
  it('stands by without reading until it holds the lease, and stops while standing by', async () => {
    const { service, reading, metrics, lease } = setUp();
    const running = service.run();
    await settle();
    expect(reading.started).toEqual([]);

    service.stop();

    await expect(running).resolves.toBe('stopped');
    expect(reading.started).toEqual([]);
    expect(metrics.leaseTaken).not.toHaveBeenCalled();
    expect(lease.events).toEqual([]);
  });

  it('reads from the lease’s positions once it holds it, and windows save positions through the lease', async () => {
    const { service, reading, windows, lease, metrics } = setUp();
    const running = service.run();
    lease.grant();
    await settle();
    expect(reading.started).toEqual([new Map([['shard-1', '41']])]);
    expect(metrics.leaseTaken).toHaveBeenCalledTimes(1);

    await reading.deliver([record('shard-1', '42'), record('shard-1', '43')]);
    await settle();

    expect(windows.flatMap((window) => window.records.map(({ sequenceNumber }) => sequenceNumber))).toEqual([
      '42',
      '43',
    ]);
    expect(lease.events).toEqual(['saved shard-1@43']);
    service.stop();
    await running;
  });

  it('asked to stop: stops reading, commits everything in a last window, then hands the lease over', async () => {
    const { service, reading, windows, lease } = setUp();
    const running = service.run();
    lease.grant();
    await settle();

    service.stop();

    await expect(running).resolves.toBe('stopped');
    expect(reading.isStopped()).toBe(true);
    expect(windows.at(-1)?.final).toBe(true);
    expect(lease.events.at(-1)).toBe('released');
  });

  it('having lost the lease: stops reading and commits nothing more, not even what it holds', async () => {
    const { service, reading, windows, lease } = setUp();
    const running = service.run();
    lease.grant();
    await settle();
    const windowsBefore = windows.length;

    lease.lose();
    await reading.deliver([record('shard-1', '44')]);

    await expect(running).resolves.toBe('lease-lost');
    await settle();
    expect(reading.isStopped()).toBe(true);
    expect(windows).toHaveLength(windowsBefore);
    expect(lease.events).not.toContain('released');
  });

  it('reports how far its reading trails, every interval while it reads', async () => {
    const { service, lease, metrics } = setUp();
    const running = service.run();
    lease.grant();
    await new Promise((resolve) => setTimeout(resolve, 130));

    expect(metrics.behind.mock.calls.length).toBeGreaterThanOrEqual(2);
    expect(metrics.behind).toHaveBeenCalledWith(1_234);
    service.stop();
    await running;
    const reported = metrics.behind.mock.calls.length;
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(metrics.behind.mock.calls.length).toBe(reported);
  });

  it('whose reading fails on its own: commits what it read, hands the lease over, and says so', async () => {
    const { service, reading, windows, lease } = setUp();
    const running = service.run();
    lease.grant();
    await settle();

    reading.fail(new Error('a delivery failed'));

    await expect(running).resolves.toBe('reading-ended');
    expect(windows.at(-1)?.final).toBe(true);
    expect(lease.events.at(-1)).toBe('released');
  });
});
