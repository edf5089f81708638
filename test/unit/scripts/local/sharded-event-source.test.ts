import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  type PartialBatchResponse,
  ShardedEventSource,
  type ShardedEventSourceOptions,
  withDefaults,
} from '../../../../scripts/local/sharded-event-source.ts';

interface TestRecord {
  readonly key: string;
  readonly value: string;
  readonly shardId: string;
  readonly sequenceNumber: string;
}

interface TestEvent {
  readonly records: TestRecord[];
}

const OPTIONS: ShardedEventSourceOptions = { shards: 1, batchSize: 10, batchWindowMs: 0, maxAttempts: 3 };

function sourceOf(
  consume: (event: TestEvent) => Promise<PartialBatchResponse | undefined>,
  options: Partial<ShardedEventSourceOptions> = {},
) {
  const deadLetters: { value: string; shardId: string; reason: string }[] = [];
  const source = new ShardedEventSource<TestRecord, TestEvent>(
    {
      name: 'the test source',
      itemIdentifier: (record) => record.sequenceNumber,
      toEvent: (records) => ({ records }),
      consume,
      deadLetter: (record, shardId, reason) => {
        deadLetters.push({ value: record.value, shardId, reason });
      },
    },
    withDefaults(OPTIONS, options),
  );
  const put = (key: string, values: string[]) => {
    for (const value of values) source.put(key, (position) => ({ key, value, ...position }));
  };
  return { source, put, deadLetters };
}

const valuesOf = (event: TestEvent) => event.records.map(({ value }) => value);

describe('ShardedEventSource', () => {
  it('numbers the records of a shard in order, with zero-padded sequence numbers', () => {
    const { source } = sourceOf(async () => undefined);
    const first = source.put('A', (position) => ({ key: 'A', value: '1', ...position }));
    const second = source.put('A', (position) => ({ key: 'A', value: '2', ...position }));

    expect(first).toMatchObject({ shardId: 'shardId-000000000000', sequenceNumber: '000000000000000000001' });
    expect(second.sequenceNumber).toBe('000000000000000000002');
  });

  it('delivers nothing after a failed record of a bisected batch before that record', async () => {
    const delivered: string[] = [];
    let failuresLeft = 3;
    const { source, put } = sourceOf(async (event) => {
      const values = valuesOf(event);
      if (values.includes('2') && failuresLeft > 0) {
        failuresLeft--;
        throw new Error('not yet');
      }
      delivered.push(...values);
      return undefined;
    });

    put('A', ['1', '2', '3', '4']);
    await source.flush();

    expect(delivered).toEqual(['1', '2', '3', '4']);
  });

  it('retries the whole batch when a failure names no item', async () => {
    const deliveries: string[][] = [];
    const { source, put } = sourceOf(async (event) => {
      deliveries.push(valuesOf(event));
      return deliveries.length === 1 ? { batchItemFailures: [{ itemIdentifier: '' }] } : undefined;
    });

    put('A', ['1', '2']);
    await source.flush();

    expect(deliveries).toEqual([
      ['1', '2'],
      ['1', '2'],
    ]);
  });

  it('retries from the earliest of several failed records', async () => {
    const deliveries: string[][] = [];
    const { source, put } = sourceOf(async (event) => {
      deliveries.push(valuesOf(event));
      if (deliveries.length > 1) return { batchItemFailures: [] };
      const [, second, third] = event.records;
      return {
        batchItemFailures: [third, second].map((record) => ({ itemIdentifier: record?.sequenceNumber })),
      };
    });

    put('A', ['1', '2', '3', '4']);
    await source.flush();

    expect(deliveries).toEqual([
      ['1', '2', '3', '4'],
      ['2', '3', '4'],
    ]);
  });

  it('dead-letters a record after maxAttempts partial failures and goes on with the next', async () => {
    const deliveries: string[][] = [];
    const { source, put, deadLetters } = sourceOf(
      async (event) => {
        deliveries.push(valuesOf(event));
        const first = event.records[0];
        return first?.value === 'bad'
          ? { batchItemFailures: [{ itemIdentifier: first.sequenceNumber }] }
          : undefined;
      },
      { maxAttempts: 2 },
    );

    put('A', ['bad', 'good']);
    await source.flush();

    expect(deliveries).toEqual([['bad', 'good'], ['bad', 'good'], ['good']]);
    expect(deadLetters).toEqual([
      { value: 'bad', shardId: 'shardId-000000000000', reason: 'reported as a batch item failure' },
    ]);
  });

  it('keeps the defaults of options left undefined', () => {
    expect(withDefaults(OPTIONS, { batchSize: undefined, maxAttempts: 5 })).toEqual({
      ...OPTIONS,
      maxAttempts: 5,
    });
  });

  it('refuses records once stopped, after delivering the ones it has', async () => {
    const delivered: string[] = [];
    const { source, put } = sourceOf(async (event) => {
      delivered.push(...valuesOf(event));
      return undefined;
    });

    put('A', ['1']);
    await source.stop();

    expect(delivered).toEqual(['1']);
    expect(source.isStopped).toBe(true);
    expect(() => put('A', ['2'])).toThrow('the test source is stopped');
  });

  it('stops within its grace: the batch in flight finishes, the records still queued are counted and left', async () => {
    let release: () => void = () => undefined;
    const delivered: string[] = [];
    const { source, put } = sourceOf(async (event) => {
      delivered.push(...valuesOf(event));
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return undefined;
    });
    put(
      'A',
      Array.from({ length: 100 }, (_, n) => String(n)),
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    const stopped = source.stop(20);
    // The batch in flight is let finish once the grace is over.
    setTimeout(() => release(), 40);
    expect(await stopped).toBe(90);
    expect(delivered).toHaveLength(10);
    expect(source.queued).toBe(0);
    expect(() => put('A', ['late'])).toThrow(/stopped/);
  });

  describe('shards taking turns', () => {
    /** Two keys of different shards of two, as the source shards them (md5 of the key). */
    const shardOfTwo = (key: string) => createHash('md5').update(key).digest().readUInt32BE(0) % 2;
    const [first, second] = ['A', 'B', 'C', 'D', 'E'].filter(
      (key, index, keys) => index === 0 || shardOfTwo(key) !== shardOfTwo(keys[0] as string),
    ) as [string, string];
    const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

    /** Holds the first batch until released; records each batch and the most batches in flight at once. */
    function heldFirstBatch(options: Partial<ShardedEventSourceOptions>) {
      const batches: string[][] = [];
      let inFlight = 0;
      let most = 0;
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const { source, put } = sourceOf(
        async (event) => {
          inFlight += 1;
          most = Math.max(most, inFlight);
          batches.push(valuesOf(event));
          if (batches.length === 1) await held;
          inFlight -= 1;
          return undefined;
        },
        { shards: 2, ...options },
      );
      return { source, put, batches, release, most: () => most };
    }

    it("runs one batch at a time, and takes a waiting shard's batch when its turn comes", async () => {
      const { source, put, batches, release, most } = heldFirstBatch({ oneBatchAtATime: true });

      put(first, ['1']);
      await wait(5);
      put(second, ['2']);
      await wait(10);
      expect(batches).toEqual([['1']]);
      put(second, ['3']);
      release();
      await source.flush();

      expect(batches).toEqual([['1'], ['2', '3']]);
      expect(most()).toBe(1);
    });

    it("leaves a batch still waiting for its turn when a stop's grace is over", async () => {
      const { source, put, batches, release } = heldFirstBatch({ oneBatchAtATime: true });

      put(first, ['1']);
      await wait(5);
      put(second, ['2', '3']);
      const stopped = source.stop(10);
      setTimeout(() => release(), 30);

      expect(await stopped).toBe(2);
      expect(batches).toEqual([['1']]);
    });

    it('without it, runs a batch of each shard at once', async () => {
      const { source, put, batches, release, most } = heldFirstBatch({});

      put(first, ['1']);
      await wait(5);
      put(second, ['2']);
      await wait(10);
      expect(batches).toEqual([['1'], ['2']]);
      release();
      await source.flush();

      expect(most()).toBe(2);
    });
  });

  it('counts the records it holds, delivered or not yet', async () => {
    const { source, put } = sourceOf(async () => undefined);
    put('A', ['1', '2', '3']);
    expect(source.queued).toBe(3);
    await source.flush();
    expect(source.queued).toBe(0);
  });
});
