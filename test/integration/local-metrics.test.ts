import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeTradeRecords } from '#domain/market-data/trade-records';
import { startTestStack, type TestStack } from '../support/local-stack.ts';

let test: TestStack;
beforeAll(async () => {
  test = await startTestStack();
});
afterAll(() => test?.stop());

const at = Date.parse('2024-11-26T15:00:00Z');

describe('GET /_local/metrics', () => {
  it('totals what the handlers recorded: trades applied and refused by reason, the batch, the authorizer', async () => {
    const trades = [1, 2, 3].map((n) => ({
      symbol: 'AAPL',
      price: 100 + n,
      size: n,
      timestamp: at + n,
      tradeId: `m${n}`,
    }));
    test.stack.trades.put(encodeTradeRecords([...trades, trades[0] as (typeof trades)[0]]));
    await test.stack.trades.flush();
    await test.get('/instruments/AAPL');

    const response = await test.request('/_local/metrics');
    expect(response.status).toBe(200);
    const metric = (name: string, dimension?: string) =>
      (response.body.metrics as { name: string; dimension?: { value: string }; sum: number }[]).find(
        (m) => m.name === name && m.dimension?.value === dimension,
      )?.sum;
    expect(metric('TradesApplied')).toBe(3);
    expect(metric('TradesRefused', 'duplicate')).toBe(1);
    expect(metric('AuthorizerOutcomes', 'allow')).toBeGreaterThanOrEqual(1);
    expect(test.stack.metrics.summaryLine(30)).toMatch(
      /trades applied 3, late prints 0, refused 1 \(duplicate 1\)/,
    );
  });
});
