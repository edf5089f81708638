import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { candlesSchema } from '#domain/market-data/candles';
import { priceItemSchema } from '#domain/market-data/prices';
import { startTestStack, type TestStack } from '../support/local-stack.ts';

let local: TestStack;
const logs: string[] = [];

beforeAll(async () => {
  // 10:00 New York on a regular Tuesday, 60 times as fast: a minute of market time per second.
  local = await startTestStack({
    clock: { start: new Date('2024-11-26T15:00:00Z'), speed: 60 },
    simulator: { seed: 7 },
    log: (line) => logs.push(line),
  });
  await local.stack.simulation;
}, 60_000);
afterAll(async () => {
  await local.stop();
});

async function until<T>(read: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('the local market simulator', () => {
  it('gives the index futures a year of daily history first', async () => {
    const daily = await until(async () => {
      const response = await local.get('/candles/ES1!?interval=1d&limit=5000');
      const candles = candlesSchema.parse(response.body);
      return candles.bars.length >= 250 ? candles : undefined;
    });
    const [first, last] = [daily.bars[0], daily.bars.at(-1)];
    expect(first && last && last.time - first.time).toBeGreaterThan(360 * 86_400);
    expect(logs[0]).toMatch(/History: writing about 13 months for 511 symbols/);
  });

  it('moves prices while the session runs, through the ingest path', async () => {
    const read = async () => {
      const response = await local.get('/prices/latest?symbols=ES1!,NQ1!,SPY');
      return (response.body.items as unknown[]).map((item) => priceItemSchema.parse(item));
    };
    const before = await until(async () => ((await read()).length === 3 ? read() : undefined));
    const after = await until(async () => {
      const now = await read();
      return now.some((item, index) => item.price !== before[index]?.price) ? now : undefined;
    });
    expect(after.map(({ symbol }) => symbol)).toEqual(['ES1!', 'NQ1!', 'SPY']);
    for (const item of after) expect(item.price).toBeGreaterThan(0);
  });

  it('builds intraday candles of the running session, the last one partial', async () => {
    const candles = await until(async () => {
      // The history ends at its last whole minute; the running bar is partial once SPY trades live.
      const parsed = candlesSchema.parse((await local.get('/candles/SPY?interval=15m&limit=3')).body);
      return parsed.bars.length > 0 && parsed.partial_bar_included ? parsed : undefined;
    });
    expect(candles.partial_bar_included).toBe(true);
    const last = candles.bars.at(-1);
    expect(last && last.low <= last.close && last.close <= last.high).toBe(true);
  });
});
