import type { KinesisStreamEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { LocalTradeStream } from '../../../../scripts/local/trade-stream.ts';

const dataOf = (event: KinesisStreamEvent) =>
  event.Records.map((record) => Buffer.from(record.kinesis.data, 'base64').toString('utf8'));
const records = (key: string, values: string[]) => values.map((data) => ({ partitionKey: key, data }));

describe('LocalTradeStream', () => {
  it('delivers each partition key in order, with increasing sequence numbers', async () => {
    const seen: string[] = [];
    const sequences: string[] = [];
    const stream = new LocalTradeStream(
      async (event) => {
        seen.push(...dataOf(event));
        sequences.push(...event.Records.map((record) => record.kinesis.sequenceNumber));
        return undefined;
      },
      { batchWindowMs: 0, batchSize: 3 },
    );

    stream.put(records('AAPL', ['a1', 'a2', 'a3', 'a4']));
    stream.put(records('MSFT', ['m1', 'm2']));
    stream.put(records('AAPL', ['a5']));
    await stream.flush();

    expect(seen.filter((data) => data.startsWith('a'))).toEqual(['a1', 'a2', 'a3', 'a4', 'a5']);
    expect(seen.filter((data) => data.startsWith('m'))).toEqual(['m1', 'm2']);
    expect(sequences.every((sequence) => /^\d{21}$/.test(sequence))).toBe(true);
  });

  it('retries from the first failed record of a partial batch response', async () => {
    const deliveries: string[][] = [];
    let failedOnce = false;
    const stream = new LocalTradeStream(
      async (event) => {
        deliveries.push(dataOf(event));
        const second = event.Records[1];
        if (!failedOnce && second) {
          failedOnce = true;
          return { batchItemFailures: [{ itemIdentifier: second.kinesis.sequenceNumber }] };
        }
        return { batchItemFailures: [] };
      },
      { shards: 1, batchWindowMs: 0 },
    );

    stream.put(records('AAPL', ['1', '2', '3']));
    await stream.flush();

    expect(deliveries).toEqual([
      ['1', '2', '3'],
      ['2', '3'],
    ]);
    expect(stream.deadLetters).toEqual([]);
  });

  it('bisects a failing batch and dead-letters the record that keeps failing, delivering the rest', async () => {
    const delivered: string[] = [];
    const stream = new LocalTradeStream(
      async (event) => {
        const data = dataOf(event);
        if (data.includes('poison')) throw new Error('cannot process');
        delivered.push(...data);
        return undefined;
      },
      { shards: 1, batchWindowMs: 0, maxAttempts: 2 },
    );

    stream.put(records('AAPL', ['1', '2', 'poison', '4']));
    await stream.flush();

    expect(delivered).toEqual(['1', '2', '4']);
    expect(stream.deadLetters).toHaveLength(1);
    expect(stream.deadLetters[0]).toMatchObject({ partitionKey: 'AAPL', reason: 'cannot process' });
  });

  it('runs one ingest batch at a time across its shards', async () => {
    let inFlight = 0;
    let most = 0;
    const stream = new LocalTradeStream(
      async () => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight -= 1;
        return undefined;
      },
      { batchWindowMs: 0, shards: 4 },
    );

    stream.put(['AAPL', 'MSFT', 'SPY', 'QQQ', 'NVDA', 'TSLA'].flatMap((key) => records(key, ['1'])));
    await stream.flush();

    expect(most).toBe(1);
  });

  it('refuses records once stopped', async () => {
    const stream = new LocalTradeStream(async () => undefined);
    await stream.stop();
    expect(() => stream.put(records('AAPL', ['1']))).toThrow(/stopped/);
  });

  it('takes records while it has room for them, and refuses the whole put when it has not', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const stream = new LocalTradeStream(
      async () => {
        await held;
        return undefined;
      },
      { capacity: 10, batchWindowMs: 0 },
    );
    expect(stream.offer(records('AAPL', ['1', '2', '3', '4', '5', '6']))).toBe(true);
    expect(stream.offer(records('AAPL', ['7', '8', '9', '10', '11']))).toBe(false);
    expect(stream.offer(records('AAPL', ['7', '8', '9', '10']))).toBe(true);
    expect(stream.hasRoom()).toBe(false);
    release();
    await stream.flush();
    expect(stream.hasRoom()).toBe(true);
  });

  it('takes one put of any size when it is empty', () => {
    const stream = new LocalTradeStream(async () => undefined, { capacity: 2 });
    expect(stream.offer(records('AAPL', ['1', '2', '3']))).toBe(true);
  });
});
