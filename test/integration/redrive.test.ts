import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeTradeRecord } from '#domain/market-data/trade-records';
import { startTestStack, type TestStack } from '../support/local-stack.ts';
import { runScript } from '../support/processes.ts';

let test: TestStack;
beforeAll(async () => {
  test = await startTestStack();
});
afterAll(() => test?.stop());

const at = Date.parse('2024-11-26T15:00:00Z');
const redrive = (...args: string[]) =>
  runScript('scripts/redrive.ts', ['--url', test.stack.restUrl, ...args]);

describe('npm run redrive, on the local stack', () => {
  it('lists, then redrives a failed batch, discards poison on request, and keeps a trade still ahead of the clock', async () => {
    const put = await test.request('/_local/records', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        records: [
          { partitionKey: 'MSFT', data: 'not a trade' },
          {
            partitionKey: 'MSFT',
            data: encodeTradeRecord({
              symbol: 'MSFT',
              price: 999,
              size: 1,
              timestamp: Date.now() + 3_600_000,
              tradeId: 'ahead',
            }),
          },
        ],
      }),
    });
    expect(put.status).toBe(200);
    // A batch the stream gave up on, as the local stream writes it: its records inside.
    const lost = { symbol: 'MSFT', price: 412.5, size: 300, timestamp: at, tradeId: 'lost-1' };
    test.stack.deadLetterQueue.send(
      JSON.stringify({
        KinesisBatchInfo: {
          shardId: 'shard-0',
          startSequenceNumber: '7',
          endSequenceNumber: '7',
          streamArn: 'arn:aws:kinesis:us-east-1:000000000000:stream/trades',
        },
        records: [{ partitionKey: 'MSFT', data: encodeTradeRecord(lost) }],
      }),
    );

    const dry = await redrive();
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('3 dead letters');
    expect(dry.stdout).toMatch(/keep\s+poison record/);
    expect(dry.stdout).toMatch(/keep\s+trade ahead is still ahead of the clock/);
    expect(dry.stdout).toMatch(/redrive\s+failed batch shard-0 7\.\.7 \(1 records\)/);
    expect(test.stack.deadLetterQueue.size).toBe(3);

    const applied = await redrive('--apply', '--discard-poison');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('Redrove 1 trades');
    expect(test.stack.deadLetterQueue.size).toBe(1);
    const prices = await test.get('/prices/latest?symbols=MSFT');
    expect(prices.body.items[0]).toMatchObject({ price: 412.5, volume: 300 });
  });

  it('says so in one line when no local stack runs at the URL', async () => {
    const result = await runScript('scripts/redrive.ts', ['--url', 'http://127.0.0.1:1/v1']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^redrive: /);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});
