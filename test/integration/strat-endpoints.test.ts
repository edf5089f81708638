import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inForceAlertSchema, simultaneousBreakSchema } from '#domain/strat/alerts';
import { setupRowSchema } from '#domain/strat/current-setups';
import { stateSnapshotSchema } from '#domain/strat/state-snapshot';
import { startStratWeekStack, type TestStack } from '../support/local-stack.ts';

/**
 * test/fixtures/strat-week.csv: for ES1!, NQ1!, RTY1!, YM1! and AAPL (each at its own scale), one minute
 * bar a day, so each daily bar is that minute: Tue 2024-11-19 O100 H105 L95 C100; Wed O101 H103 L99 C102
 * (an inside bar: 1); Thu O102 H104 L101 C103 (2U); then on Fri 2024-11-22 a bar O103.5 H104.5 L103.4
 * C104.2 that takes out Thursday's high: the daily 1-2U setup goes in force bullish. ES1! at 14:40, NQ1! at
 * 14:42, RTY1! at 14:44 (within five minutes of ES1!), YM1! at 15:10 (outside), AAPL at 14:50. The service
 * clock reads Friday 11:00 New York.
 */
let local: TestStack;

beforeAll(async () => {
  local = await startStratWeekStack();
}, 60_000);
afterAll(async () => {
  await local.stop();
});

describe('GET /states/{symbol}', () => {
  it('derives TFC and setup rows at now: the daily 1-2U in force bullish, continuation, pmg at Tuesday high', async () => {
    const response = await local.get('/states/aapl');
    expect(response.status).toBe(200);
    const state = stateSnapshotSchema.parse(response.body);
    expect(state.symbol).toBe('AAPL');
    expect(state.instrument.name).toBe('Apple Inc.');
    expect(state.price).toEqual({ price: 208.4, volume: 25, time: '2024-11-22T14:50:45.000Z' });
    expect(state.setups.find((row) => row.timeframe === 'D')).toEqual({
      symbol: 'AAPL',
      timeframe: 'D',
      shape: '1-2U',
      in_force: true,
      p3: false,
      pmg: 210,
      continuation: true,
      sector: 'Information Technology',
    });
    expect(state.tfc.D).toBe('green');
    expect(state.default_timeframe).toBe('D');
    expect(state.chart_timeframes).toEqual(['15', '30', '60', '4H', 'D', 'W', 'M', 'Q', 'Y']);
  });

  it('answers an empty state for a tracked symbol without trades, and 404 for an unknown one', async () => {
    const quiet = await local.get('/states/MSFT');
    expect(quiet.body).toMatchObject({ symbol: 'MSFT', price: {}, tfc: {}, setups: [] });
    const unknown = await local.get('/states/NOPE');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: { code: 'unknown_symbol', message: 'unknown symbol' } });
  });
});

describe('GET /setups/current', () => {
  it('orders rows by symbol, then timeframe, before the limit', async () => {
    const response = await local.get('/setups/current?limit=1000');
    const rows = response.body.items.map((row: unknown) => setupRowSchema.parse(row));
    const keys = rows.map((row: { symbol: string; timeframe: string }) => `${row.symbol} ${row.timeframe}`);
    expect(keys).toContain('AAPL D');
    expect(keys.indexOf('AAPL D')).toBeLessThan(keys.indexOf('ES1! 15'));
    const aapl = rows
      .filter((row: { symbol: string }) => row.symbol === 'AAPL')
      .map((row: { timeframe: string }) => row.timeframe);
    expect(aapl.at(-1)).toBe('D');
    expect(aapl.join(',')).toBe(
      [...aapl]
        .sort((a, b) => ['15', '30', '60', '4H', 'D'].indexOf(a) - ['15', '30', '60', '4H', 'D'].indexOf(b))
        .join(','),
    );
  });

  it('filters by symbols and timeframes, and applies the limit last', async () => {
    const daily = await local.get('/setups/current?timeframes=d&symbols=ym1!,es1!,nq1!');
    expect(daily.body.items.map((row: { symbol: string }) => row.symbol)).toEqual(['ES1!', 'NQ1!', 'YM1!']);
    const limited = await local.get('/setups/current?timeframes=D&limit=2');
    expect(limited.body.items.map((row: { symbol: string }) => row.symbol)).toEqual(['AAPL', 'ES1!']);
  });

  it.each(['?timeframes=D,5', '?limit=lots'])('answers %s with 400 invalid_parameter', async (query) => {
    const response = await local.get(`/setups/current${query}`);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_parameter');
  });
});

describe('GET /alerts/in-force', () => {
  // The fields: docs/partner-guide.md#in-force-alert
  it('lists the daily alerts in id order with every field of an in-force alert', async () => {
    const response = await local.get('/alerts/in-force?timeframe=D');
    const items = response.body.items.map((item: unknown) => inForceAlertSchema.parse(item));
    // Ids follow commit order; two shards commit in parallel, so symbols need not come in time order.
    expect(items.map((item: { symbol: string }) => item.symbol).sort()).toEqual([
      'AAPL',
      'ES1!',
      'NQ1!',
      'RTY1!',
      'YM1!',
    ]);
    expect(items.find((item: { symbol: string }) => item.symbol === 'ES1!')).toMatchObject({
      timeframe: 'D',
      direction: 'bullish',
      shape: '1-2U',
      price: 5225,
      cc: '2U',
      triggered_at: '2024-11-22T14:40:15.000Z',
    });
    const ids = items.map((item: { id: number }) => item.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it('polls incrementally with since_id and honours every filter', async () => {
    const all = (await local.get('/alerts/in-force?timeframe=D')).body.items as {
      id: number;
      symbol: string;
    }[];
    const after = await local.get(`/alerts/in-force?timeframe=D&since_id=${all[1]?.id}`);
    expect(after.body.items).toEqual(all.slice(2));
    expect((await local.get('/alerts/in-force?timeframe=D&symbols=aapl')).body.items).toHaveLength(1);
    expect((await local.get('/alerts/in-force?timeframe=D&direction=bearish')).body.items).toEqual([]);
    expect((await local.get('/alerts/in-force?timeframe=D&cc=2U&limit=2')).body.items).toHaveLength(2);
    expect((await local.get('/alerts/in-force?timeframe=D&cc=3')).body.items).toEqual([]);
    // 11:00 New York; the alerts fired 09:40-10:10: a 30-minute window keeps only YM1!'s.
    expect(
      (await local.get('/alerts/in-force?timeframe=D&window_minutes=55')).body.items.map(
        (item: { symbol: string }) => item.symbol,
      ),
    ).toEqual(['YM1!']);
  });

  it.each(['?since_id=x', '?direction=up', '?cc=4', '?timeframe=2H', '?window_minutes=1e3'])(
    'answers %s with 400 invalid_parameter',
    async (query) => {
      const response = await local.get(`/alerts/in-force${query}`);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('invalid_parameter');
    },
  );
});

describe('GET /alerts/simultaneous-breaks', () => {
  it('fires threshold 2 and 3 of the daily bullish break, not 4 (YM1! broke outside the window)', async () => {
    const response = await local.get('/alerts/simultaneous-breaks?timeframe=D');
    const items = response.body.items.map((item: unknown) => simultaneousBreakSchema.parse(item));
    expect(items.map(({ id: _id, ...item }: { id: number }) => item)).toEqual([
      {
        timeframe: 'D',
        direction: 'bullish',
        threshold: 2,
        symbols: ['ES1!', 'NQ1!'],
        triggered_at: '2024-11-22T14:42:15.000Z',
      },
      {
        timeframe: 'D',
        direction: 'bullish',
        threshold: 3,
        symbols: ['ES1!', 'NQ1!', 'RTY1!'],
        triggered_at: '2024-11-22T14:44:15.000Z',
      },
    ]);
  });

  it('filters by threshold, direction and since_id', async () => {
    const three = await local.get('/alerts/simultaneous-breaks?timeframe=D&threshold=3');
    expect(three.body.items.map((item: { threshold: number }) => item.threshold)).toEqual([3]);
    expect((await local.get('/alerts/simultaneous-breaks?direction=bearish')).body.items).toEqual([]);
    const first = (await local.get('/alerts/simultaneous-breaks?limit=1')).body.items[0] as { id: number };
    const rest = await local.get(`/alerts/simultaneous-breaks?since_id=${first.id}`);
    expect(rest.body.items.every((item: { id: number }) => item.id > first.id)).toBe(true);
  });

  it('answers threshold=5 with 400 invalid_parameter', async () => {
    expect((await local.get('/alerts/simultaneous-breaks?threshold=5')).status).toBe(400);
  });
});
