import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeTradeRecord } from '#domain/market-data/trade-records';
import { startTestStack, type TestStack } from '../support/local-stack.ts';
import { TestWebSocketClient } from '../support/ws-client.ts';

/** Friday 2024-11-22, 11:00 New York: trades inside the session. */
const SESSION_START_MS = Date.parse('2024-11-22T16:00:00Z');

let local: TestStack;
let client: TestWebSocketClient;
beforeAll(async () => {
  local = await startTestStack({ clock: { start: new Date(SESSION_START_MS), speed: 1 }, ingest: 'windows' });
  client = TestWebSocketClient.connect(local.stack.wsUrl, { 'X-API-Key': local.stack.demoKey });
  await client.opened();
  await client.request({ op: 'subscribe', topics: [{ channel: 'quotes', symbols: ['AAPL'] }] }, 'subscribed');
});
afterAll(async () => {
  client?.close();
  await local?.stop();
});

const record = (symbol: string, price: number, second: number) => ({
  partitionKey: symbol,
  data: encodeTradeRecord({
    symbol,
    price,
    size: 10,
    timestamp: SESSION_START_MS + second * 1_000,
    tradeId: `${symbol}-${second}`,
  }),
});

describe('the local stack with the windowed ingest consumer (npm start)', () => {
  it('pushes a window’s quote, and once flushed has stored the trades, counted them and moved the shard positions', async () => {
    const from = client.messages.length;
    local.stack.trades.put([record('AAPL', 190, 1), record('MSFT', 410, 1), record('AAPL', 191, 2)]);

    const quote = await client.next((message) => message.channel === 'quotes', { from });
    expect(quote).toEqual({
      channel: 'quotes',
      symbol: 'AAPL',
      data: { symbol: 'AAPL', price: 191, volume: 10 },
    });

    // A flush of the stream means "ingested": the consumer's window and its commits.
    await local.stack.trades.flush();
    const prices = await local.get('/prices/latest?symbols=AAPL,MSFT');
    expect(prices.body.items).toEqual([
      { symbol: 'AAPL', price: 191, volume: 10 },
      { symbol: 'MSFT', price: 410, volume: 10 },
    ]);
    expect([...local.stack.shardPositions.values()].length).toBeGreaterThan(0);
    const metrics = await local.request('/_local/metrics');
    const sum = (name: string) =>
      (metrics.body.metrics as { name: string; dimension?: unknown; sum: number }[]).find(
        (metric) => metric.name === name && metric.dimension === undefined,
      )?.sum;
    expect(sum('TradesApplied')).toBe(3);
  });
});
