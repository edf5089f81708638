import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, MarketDataError } from '../../clients/typescript/src/index.ts';
import { startStratWeekStack, type TestStack } from '../support/local-stack.ts';

/**
 * The client library against the local stack: every REST route, its typed errors and the pollers. The data is
 * the replay of test/fixtures/strat-week.csv (see strat-endpoints.test.ts): the daily 1-2U setups go in force
 * on Friday 2024-11-22, and ES1!, NQ1! and RTY1! break together.
 */
let local: TestStack;
let requests: string[] = [];

const countingFetch: typeof fetch = (input, init) => {
  requests.push(String(input));
  return fetch(input, init);
};

const client = () =>
  createClient({ baseUrl: local.stack.restUrl, apiKey: local.stack.demoKey, fetch: countingFetch });

beforeAll(async () => {
  local = await startStratWeekStack();
}, 60_000);
afterAll(async () => {
  await local.stop();
});

describe('the client library over the local stack', () => {
  it('lists instruments with symbols, search and limit', async () => {
    const { items } = await client().listInstruments({ symbols: ['msft', 'AAPL', 'ES1!'], limit: 2 });
    expect(items.map((item) => item.symbol)).toEqual(['AAPL', 'ES1!']);
    const found = await client().listInstruments({ search: 'aap' });
    expect(found.items.map((item) => item.symbol)).toContain('AAPL');
  });

  it('gets one instrument, a future by its raw ticker included', async () => {
    expect((await client().getInstrument('ES1!')).market).toBe('futures');
    expect((await client().getInstrument('aapl')).symbol).toBe('AAPL');
  });

  it('gets the market status', async () => {
    const status = await client().getMarketStatus();
    expect(status).toMatchObject({ market: 'stocks', is_open: true });
    expect(status.session.session_date).toBe('2024-11-22');
  });

  it('gets the latest prices in the order of the symbols', async () => {
    const { items } = await client().getLatestPrices({ symbols: ['ES1!', 'AAPL'] });
    expect(items.map((item) => item.symbol)).toEqual(['ES1!', 'AAPL']);
  });

  it('gets candles of an interval with start, end and limit', async () => {
    const candles = await client().getCandles('AAPL', { interval: '1d', start: '2024-11-20', limit: 2 });
    expect(candles).toMatchObject({ symbol: 'AAPL', interval: '1d' });
    expect(candles.bars.map((bar) => new Date(bar.time * 1000).toISOString().slice(0, 10))).toEqual([
      '2024-11-21',
      '2024-11-22',
    ]);
  });

  it('gets a state snapshot and the current setups', async () => {
    const state = await client().getState('AAPL');
    expect(state.setups.find((row) => row.timeframe === 'D')).toMatchObject({
      shape: '1-2U',
      in_force: true,
    });
    const setups = await client().getCurrentSetups({ symbols: ['AAPL'], timeframes: ['D'] });
    expect(setups.items).toEqual([expect.objectContaining({ symbol: 'AAPL', timeframe: 'D' })]);
  });

  it('gets in-force alerts and simultaneous breaks with their filters', async () => {
    const alerts = await client().getInForceAlerts({ symbols: ['ES1!'], timeframe: 'D', limit: 10 });
    expect(alerts.items.length).toBeGreaterThan(0);
    expect(alerts.items.every((alert) => alert.symbol === 'ES1!' && alert.timeframe === 'D')).toBe(true);
    const breaks = await client().getSimultaneousBreaks({ threshold: '3', timeframe: 'D' });
    expect(breaks.items).toEqual([
      expect.objectContaining({ threshold: 3, symbols: ['ES1!', 'NQ1!', 'RTY1!'] }),
    ]);
  });

  it('throws MarketDataError with the code of the envelope, without retrying a 404', async () => {
    requests = [];
    const error = await client()
      .getState('ZZZZ')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MarketDataError);
    expect(error).toMatchObject({ status: 404, code: 'unknown_symbol', message: 'unknown symbol' });
    expect(requests).toHaveLength(1);
  });

  it('reports the bodiless 404 of an unknown interval as unknown_interval', async () => {
    const error = await client()
      .getCandles('AAPL', { interval: '2d' as '1d' })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 404, code: 'unknown_interval' });
  });

  it('reports 400 missing_symbols and invalid_parameter', async () => {
    await expect(client().getLatestPrices({ symbols: [] })).rejects.toMatchObject({
      status: 400,
      code: 'missing_symbols',
    });
    await expect(client().getCandles('AAPL', { start: 'yesterday' })).rejects.toMatchObject({
      status: 400,
      code: 'invalid_parameter',
    });
  });

  it('does not retry a 401', async () => {
    requests = [];
    const stranger = createClient({ baseUrl: local.stack.restUrl, apiKey: 'mda_nope', fetch: countingFetch });
    await expect(stranger.getMarketStatus()).rejects.toMatchObject({ status: 401, code: 'missing_api_key' });
    expect(requests).toHaveLength(1);
  });

  it('polls every in-force alert once in id order, and resumes after a given id', async () => {
    const everything = (await client().getInForceAlerts({ limit: 1000, window_minutes: 10_080 })).items;
    expect(everything.length).toBeGreaterThan(2);
    const polled = await take(
      client().pollInForceAlerts({ window_minutes: 10_080, limit: 2 }),
      everything.length,
    );
    expect(polled).toEqual(everything);
    const resumeAfter = everything[1]?.id;
    const resumed = await take(
      client().pollInForceAlerts({ window_minutes: 10_080, sinceId: resumeAfter }),
      everything.length - 2,
    );
    expect(resumed).toEqual(everything.slice(2));
  });

  it('polls past a narrow filter by X-Next-Since-Id and ends when its signal aborts', async () => {
    const everything = (await client().getInForceAlerts({ limit: 1000, window_minutes: 10_080 })).items;
    const aapl = everything.filter((alert) => alert.symbol === 'AAPL');
    const controller = new AbortController();
    const polled = [];
    for await (const alert of client().pollInForceAlerts({
      symbols: ['AAPL'],
      window_minutes: 10_080,
      intervalMs: 50,
      signal: controller.signal,
    })) {
      polled.push(alert);
      if (polled.length === aapl.length) controller.abort();
    }
    expect(polled).toEqual(aapl);
  });

  it('polls simultaneous breaks', async () => {
    const everything = (await client().getSimultaneousBreaks({ window_minutes: 10_080 })).items;
    const polled = await take(client().pollSimultaneousBreaks({ window_minutes: 10_080 }), everything.length);
    expect(polled).toEqual(everything);
  });
});

/** The first `count` items of a poller, then stops it. */
async function take<Item>(iterator: AsyncGenerator<Item, void, undefined>, count: number): Promise<Item[]> {
  const items: Item[] = [];
  if (count <= 0) return items;
  for await (const item of iterator) {
    items.push(item);
    if (items.length >= count) break;
  }
  return items;
}
