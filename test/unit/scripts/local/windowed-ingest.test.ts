import { describe, expect, it } from 'vitest';
import { type TradeWindow, WindowNotTaken } from '#handlers/ingest/window-event';
import { LocalTradeStream } from '../../../../scripts/local/trade-stream.ts';
import { LocalWindowedIngest } from '../../../../scripts/local/windowed-ingest.ts';

const records = (key: string, values: string[]) => values.map((data) => ({ partitionKey: key, data }));

/** A host whose windows are recorded; `handle` may fail some. */
function setUp(handle: (window: TradeWindow) => Promise<void> = async () => undefined, capacity?: number) {
  const windows: TradeWindow[] = [];
  const host = new LocalWindowedIngest(
    async (window) => {
      windows.push(window);
      await handle(window);
    },
    { windowMs: 60_000, ...(capacity === undefined ? {} : { capacity }) },
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
    const { windows, host, stream } = setUp(async () => undefined, 2);
    stream.put(records('AAPL', ['a1', 'a2']));
    await new Promise((resolve) => setTimeout(resolve, 20));
    stream.put(records('AAPL', ['a3']));
    await new Promise((resolve) => setTimeout(resolve, 20));

    await host.flush();
    await stream.flush();

    expect(windows.map((window) => window.records.map(({ data }) => data))).toEqual([['a1', 'a2'], ['a3']]);
  });
});
