import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeTradeRecords } from '#domain/market-data/trade-records';
import { startTestStack, type TestStack } from '../support/local-stack.ts';

/**
 * Each local stack hands its handlers its own ports (scripts/local/handlers.ts), so stacks in one process
 * never read each other's clock, tables or metrics (docs/adr/0007-handler-wiring-and-local-stack.md).
 */
let friday: TestStack;
let saturday: TestStack;
beforeAll(async () => {
  [friday, saturday] = await Promise.all([
    // 11:00 New York on a trading Friday, and the Saturday after: open, then closed.
    startTestStack({ clock: { start: new Date('2024-11-22T16:00:00Z'), speed: 1 } }),
    startTestStack({ clock: { start: new Date('2024-11-23T16:00:00Z'), speed: 1 } }),
  ]);
});
afterAll(() => Promise.all([friday?.stop(), saturday?.stop()]));

const metricSum = async (test: TestStack, name: string, dimension?: string) => {
  const response = await test.request('/_local/metrics');
  const metrics = response.body.metrics as { name: string; dimension?: { value: string }; sum: number }[];
  return metrics.find((m) => m.name === name && m.dimension?.value === dimension)?.sum ?? 0;
};

describe('two local stacks in one process', () => {
  it('answer each on its own service clock', async () => {
    const [open, closed] = await Promise.all([friday.get('/market-status'), saturday.get('/market-status')]);
    expect(open.status).toBe(200);
    expect(open.body.now).toMatch(/^2024-11-22T11:/);
    expect(open.body.is_open).toBe(true);
    expect(closed.body.now).toMatch(/^2024-11-23T11:/);
    expect(closed.body.is_open).toBe(false);
  });

  it('ingest into their own tables and total their own metrics', async () => {
    const at = Date.parse('2024-11-22T15:30:00Z');
    const trades = [1, 2].map((n) => ({
      symbol: 'AAPL',
      price: 200 + n,
      size: n,
      timestamp: at + n,
      tradeId: `s${n}`,
    }));
    friday.stack.trades.put(encodeTradeRecords(trades));
    await friday.stack.trades.flush();

    const [there, notThere] = await Promise.all([
      friday.get('/prices/latest?symbols=AAPL'),
      saturday.get('/prices/latest?symbols=AAPL'),
    ]);
    expect(there.body.items).toEqual([expect.objectContaining({ symbol: 'AAPL', price: 202 })]);
    expect(notThere.body.items).toEqual([]);
    expect(await metricSum(friday, 'TradesApplied')).toBe(2);
    expect(await metricSum(saturday, 'TradesApplied')).toBe(0);
  });
});
