import type { KinesisStreamEvent } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type TradeWindow, WindowNotTaken } from '#handlers/ingest/window-event';
import { LocalTradeStream } from '../../../../scripts/local/trade-stream.ts';
import { LocalWindowedIngest } from '../../../../scripts/local/windowed-ingest.ts';

const records = (key: string, values: string[]) => values.map((data) => ({ partitionKey: key, data }));

/** A host whose windows are recorded; `handle` may fail some, or say how much the consumer holds. */
function setUp(
  handle: (window: TradeWindow) => Promise<number | undefined> = async () => undefined,
  options: { capacity?: number; windowMs?: number; recordsPerWindow?: number } = {},
) {
  const windows: TradeWindow[] = [];
  const host = new LocalWindowedIngest(
    async (window) => {
      windows.push(window);
      return { backlog: (await handle(window)) ?? 0 };
    },
    { windowMs: 60_000, ...options },
  );
  const stream = new LocalTradeStream(host.consume, {
    shards: 2,
    batchWindowMs: 0,
    consumerFlush: () => host.flush(),
  });
  return { windows, host, stream };
}

describe('LocalWindowedIngest', () => {
  it('takes every shard’s records into one window, each shard’s in order, named by its shard', async () => {
    const { windows, stream } = setUp();
    stream.put(records('AAPL', ['a1', 'a2']));
    stream.put(records('MSFT', ['m1']));
    stream.put(records('AAPL', ['a3']));

    await stream.flush();

    expect(windows).toHaveLength(1);
    const [window] = windows as [TradeWindow];
    expect(window.final).toBe(true);
    expect(
      window.records.filter(({ partitionKey }) => partitionKey === 'AAPL').map(({ data }) => data),
    ).toEqual(['a1', 'a2', 'a3']);
    expect(window.records.map(({ data }) => data).sort()).toEqual(['a1', 'a2', 'a3', 'm1']);
    expect(window.records.every(({ shardId }) => /^shardId-\d+$/.test(shardId))).toBe(true);
  });

  it('holds the records of a window its consumer never took for the next one, and not those it took', async () => {
    let failures = [new WindowNotTaken(new Error('no universe')), new Error('a write failed after taking')];
    const { windows, stream } = setUp(async () => {
      const failure = failures[0];
      failures = failures.slice(1);
      if (failure) throw failure;
      return 0;
    });
    stream.put(records('AAPL', ['a1']));
    await stream.flush();
    stream.put(records('AAPL', ['a2']));
    await stream.flush();
    await stream.flush();

    expect(windows.map((window) => window.records.map(({ data }) => data))).toEqual([
      ['a1'],
      ['a1', 'a2'],
      [],
    ]);
  });

  it('makes a shard’s next delivery wait while it holds its capacity, until a window takes what it holds', async () => {
    const { windows, host, stream } = setUp(async () => undefined, { capacity: 2 });
    stream.put(records('AAPL', ['a1', 'a2']));
    await new Promise((resolve) => setTimeout(resolve, 20));
    stream.put(records('AAPL', ['a3']));
    await new Promise((resolve) => setTimeout(resolve, 20));

    await host.flush();
    await stream.flush();

    expect(windows.map((window) => window.records.map(({ data }) => data))).toEqual([['a1', 'a2'], ['a3']]);
  });

  it('takes a backlog a bounded window at a time, oldest first, and commits it all when flushed', async () => {
    const { windows, stream } = setUp(async () => undefined, { recordsPerWindow: 2 });
    stream.put(records('AAPL', ['a1', 'a2', 'a3', 'a4', 'a5']));

    await stream.flush();

    expect(windows.map((window) => window.records.map(({ data }) => data))).toEqual([
      ['a1', 'a2'],
      ['a3', 'a4'],
      ['a5'],
    ]);
    expect(windows.map((window) => window.final ?? false)).toEqual([false, false, true]);
  });

  describe('its windows on time', () => {
    beforeEach(() => {
      vi.useFakeTimers();
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    /** A host started, fed directly as the stream's consumer would feed it. */
    function started(backlogs: number[] = []) {
      const setup = setUp(async () => backlogs.shift() ?? 0, { windowMs: 150 });
      setup.host.start();
      const deliver = (data: string, symbol = 'AAPL') =>
        setup.host.consume({
          Records: [
            {
              eventID: `shardId-000000000000:${data}`,
              kinesis: {
                partitionKey: symbol,
                sequenceNumber: data,
                data: Buffer.from(data).toString('base64'),
              },
            },
          ],
        } as KinesisStreamEvent);
      return { ...setup, deliver };
    }
    const taken = (windows: readonly TradeWindow[]) =>
      windows.map((window) => window.records.map(({ data }) => data));

    it('takes a record that comes after a quiet spell at once, and a record soon after it a window after the first', async () => {
      const { windows, deliver } = started();
      await deliver('1');
      await vi.advanceTimersByTimeAsync(0);
      expect(taken(windows)).toEqual([['1']]);

      await vi.advanceTimersByTimeAsync(100);
      await deliver('2');
      await vi.advanceTimersByTimeAsync(49);
      expect(taken(windows)).toEqual([['1']]);
      await vi.advanceTimersByTimeAsync(1);
      expect(taken(windows)).toEqual([['1'], ['2']]);
    });

    it('takes a record of a symbol no window took within a window at once, and one of a symbol taken sooner a window after', async () => {
      const { windows, deliver } = started();
      await deliver('a1');
      await vi.advanceTimersByTimeAsync(0);
      // 10 ms later, another symbol: at once, though the last window started 10 ms ago.
      await vi.advanceTimersByTimeAsync(10);
      await deliver('m1', 'MSFT');
      await vi.advanceTimersByTimeAsync(0);
      expect(taken(windows)).toEqual([['a1'], ['m1']]);
      // AAPL again: a window after the last one started (at 10 ms), not at once.
      await vi.advanceTimersByTimeAsync(10);
      await deliver('a2');
      await vi.advanceTimersByTimeAsync(129);
      expect(taken(windows)).toHaveLength(2);
      await vi.advanceTimersByTimeAsync(1);
      expect(taken(windows)).toEqual([['a1'], ['m1'], ['a2']]);
      // A window later AAPL is quiet again: at once.
      await vi.advanceTimersByTimeAsync(150);
      await deliver('a3');
      await vi.advanceTimersByTimeAsync(0);
      expect(taken(windows)).toEqual([['a1'], ['m1'], ['a2'], ['a3']]);
    });

    it('takes a quiet symbol’s record at once while the next window waits only to commit', async () => {
      // The first window leaves a symbol to commit: the next is set a window later, for the commit.
      const { windows, deliver } = started([1, 0, 0]);
      await deliver('a1');
      await vi.advanceTimersByTimeAsync(20);
      expect(taken(windows)).toEqual([['a1']]);
      await deliver('m1', 'MSFT');
      await vi.advanceTimersByTimeAsync(0);
      expect(taken(windows)).toEqual([['a1'], ['m1']]);
    });

    it('holds a quiet symbol’s record with a busy one’s until the window’s time, in the order they came', async () => {
      const { windows, deliver } = started();
      await deliver('a1');
      await vi.advanceTimersByTimeAsync(50);
      await deliver('a2');
      await vi.advanceTimersByTimeAsync(10);
      await deliver('m1', 'MSFT');
      await vi.advanceTimersByTimeAsync(89);
      expect(taken(windows)).toEqual([['a1']]);
      await vi.advanceTimersByTimeAsync(1);
      expect(taken(windows)).toEqual([['a1'], ['a2', 'm1']]);
    });

    it('keeps to the window for a busy symbol’s record that comes while a quiet one’s window is about to start', async () => {
      const { windows, deliver } = started();
      await deliver('a1');
      await vi.advanceTimersByTimeAsync(20);
      // Both in the same turn: the quiet one set its window for now, the busy one came before it started.
      const quiet = deliver('m1', 'MSFT');
      const busy = deliver('a2');
      await Promise.all([quiet, busy]);
      await vi.advanceTimersByTimeAsync(129);
      expect(taken(windows)).toEqual([['a1']]);
      await vi.advanceTimersByTimeAsync(1);
      expect(taken(windows)).toEqual([['a1'], ['m1', 'a2']]);
    });

    it('takes a backlog larger than a window at once, window after window, then keeps to the window again', async () => {
      const setup = setUp(async () => 0, { windowMs: 150, recordsPerWindow: 2 });
      setup.host.start();
      const event = (values: string[]) =>
        ({
          Records: values.map((data) => ({
            eventID: `shardId-000000000000:${data}`,
            kinesis: {
              partitionKey: 'AAPL',
              sequenceNumber: data,
              data: Buffer.from(data).toString('base64'),
            },
          })),
        }) as KinesisStreamEvent;
      await setup.host.consume(event(['1', '2', '3', '4', '5']));

      // The backlog: two windows within a millisecond, not 150 ms apart.
      await vi.advanceTimersByTimeAsync(1);
      expect(taken(setup.windows)).toEqual([
        ['1', '2'],
        ['3', '4'],
      ]);
      // What is left fits a window: it waits for the window's time again.
      await vi.advanceTimersByTimeAsync(147);
      expect(taken(setup.windows)).toHaveLength(2);
      await vi.advanceTimersByTimeAsync(3);
      expect(taken(setup.windows)).toEqual([['1', '2'], ['3', '4'], ['5']]);
    });

    it('counts as pending what it holds and what the consumer has not committed, until both are done', async () => {
      const { host, deliver } = started([2, 0]);
      const held = deliver('1');
      expect(host.pending).toBe(1);
      await held;
      await vi.advanceTimersByTimeAsync(0);
      // Taken, and two symbols left to commit.
      expect(host.pending).toBe(2);
      await vi.advanceTimersByTimeAsync(150);
      expect(host.pending).toBe(0);
    });

    it('runs no window while nothing is held and nothing is left to commit, and windows on while something is', async () => {
      const { windows, deliver } = started([1, 1, 0]);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(windows).toHaveLength(0);

      await deliver('1');
      await vi.advanceTimersByTimeAsync(1_000);
      // The first window left a backlog, the second too, the third none: then the host waits.
      expect(taken(windows)).toEqual([['1'], [], []]);
    });
  });
});
