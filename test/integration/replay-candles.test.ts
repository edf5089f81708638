import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../support/local-stack.ts';
import { runScript } from '../support/processes.ts';

/**
 * test/fixtures/aapl-minute-bars.csv: eight 1-minute bars of Monday 2024-11-25 (one at 16:05 New York,
 * after the close, which must be ignored) and one of Tuesday 09:30. The service clock reads Tuesday 10:00.
 */
const FILE = 'test/fixtures/aapl-minute-bars.csv';
const t = (iso: string) => Date.parse(iso) / 1000;
const bar = (time: string, open: number, high: number, low: number, close: number, volume: number) => ({
  time: t(time),
  open,
  high,
  low,
  close,
  volume,
});

let local: TestStack;

beforeAll(async () => {
  local = await startTestStack({ clock: { start: new Date('2024-11-26T15:00:00Z'), speed: 1 } });
  const replay = await runScript('scripts/replay.ts', ['--file', FILE, '--url', local.stack.restUrl]);
  expect(replay.stderr).not.toMatch(/Error/);
  expect(replay.code).toBe(0);
  expect(replay.stdout).toContain('Replayed 40 trades from 1-minute bars');
}, 60_000);
afterAll(async () => {
  await local.stop();
});

const candles = (query: string) => local.candles('AAPL', query);

describe('a replayed minute-bar file, read back over REST', () => {
  it('gives back the 1m bars themselves, the after-hours bar ignored, never partial', async () => {
    const result = await candles('?interval=1m&end=2024-11-25T23:59:59Z');
    expect(result.bars).toEqual([
      bar('2024-11-25T14:30:00Z', 100, 101, 99.5, 100.5, 1000),
      bar('2024-11-25T14:31:00Z', 100.5, 102, 100, 101.5, 2000),
      bar('2024-11-25T14:45:00Z', 101.5, 101.8, 100.8, 101, 1500),
      bar('2024-11-25T15:29:00Z', 101, 103, 100.9, 102.5, 500),
      bar('2024-11-25T15:30:00Z', 102.5, 102.6, 98, 99, 4000),
      bar('2024-11-25T18:29:00Z', 99, 99.5, 98.5, 99.2, 100),
      bar('2024-11-25T18:30:00Z', 99.2, 100, 99.1, 99.9, 300),
      bar('2024-11-25T20:59:00Z', 99.9, 100.2, 99.8, 100.1, 700),
    ]);
    expect((await candles('?interval=1m')).partial_bar_included).toBe(false);
  });

  it('builds the 15m bars from the session open', async () => {
    const result = await candles('?interval=15m&end=2024-11-25');
    expect(result.bars).toEqual([]);
    expect((await candles('?interval=15m&start=2024-11-25&end=2024-11-25T16:00:00Z')).bars).toEqual([
      bar('2024-11-25T14:30:00Z', 100, 102, 99.5, 101.5, 3000),
      bar('2024-11-25T14:45:00Z', 101.5, 101.8, 100.8, 101, 1500),
      bar('2024-11-25T15:15:00Z', 101, 103, 100.9, 102.5, 500),
      bar('2024-11-25T15:30:00Z', 102.5, 102.6, 98, 99, 4000),
    ]);
  });

  it('builds the 60m bars at :30, the last one cut at the close', async () => {
    expect((await candles('?interval=60m&end=2024-11-25T23:00:00Z')).bars).toEqual([
      bar('2024-11-25T14:30:00Z', 100, 103, 99.5, 102.5, 5000),
      bar('2024-11-25T15:30:00Z', 102.5, 102.6, 98, 99, 4000),
      bar('2024-11-25T17:30:00Z', 99, 99.5, 98.5, 99.2, 100),
      bar('2024-11-25T18:30:00Z', 99.2, 100, 99.1, 99.9, 300),
      bar('2024-11-25T20:30:00Z', 99.9, 100.2, 99.8, 100.1, 700),
    ]);
  });

  it('builds the two 4h bars of the session, 09:30-13:30 and 13:30-16:00', async () => {
    expect((await candles('?interval=4h&end=2024-11-25T23:00:00Z')).bars).toEqual([
      bar('2024-11-25T14:30:00Z', 100, 103, 98, 99.2, 9100),
      bar('2024-11-25T18:30:00Z', 99.2, 100.2, 99.1, 100.1, 1000),
    ]);
  });

  it('builds daily bars at midnight UTC of the session date, the forming one partial while the market is open', async () => {
    const result = await candles('');
    expect(result.interval).toBe('1d');
    expect(result.bars).toEqual([
      bar('2024-11-25T00:00:00Z', 100, 103, 98, 100.1, 10100),
      bar('2024-11-26T00:00:00Z', 100, 100.5, 97, 97.5, 800),
    ]);
    expect(result.partial_bar_included).toBe(true);
  });

  it('counts nothing twice when the same file is replayed again', async () => {
    const again = await runScript('scripts/replay.ts', ['--file', FILE, '--url', local.stack.restUrl]);
    expect(again.code).toBe(0);
    expect((await candles('?interval=1w')).bars).toEqual([
      bar('2024-11-25T00:00:00Z', 100, 103, 97, 97.5, 10900),
    ]);
  });

  it('serves the latest trade at /prices/latest, in the order asked, omitting symbols without trades', async () => {
    const response = await local.get('/prices/latest?symbols=msft,AAPL');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ items: [{ symbol: 'AAPL', price: 97.5, volume: 200 }] });
  });
});

describe('GET /candles/{symbol} rules over HTTP', () => {
  it('keeps the most recent `limit` bars, oldest first', async () => {
    const result = await candles('?interval=1m&limit=2');
    expect(result.bars.map(({ time }) => time)).toEqual([
      t('2024-11-25T20:59:00Z'),
      t('2024-11-26T14:30:00Z'),
    ]);
  });

  it.each(['?interval=2m', '?interval=1h', '?interval=D', '?interval=1d%20x'])(
    'answers %s with a 404 and no body at all',
    async (query) => {
      const response = await local.get(`/candles/AAPL${query}`);
      expect(response.status).toBe(404);
      expect(response.text).toBe('');
    },
  );

  it.each(['?interval=', '?interval=%20', '?interval=1D'])(
    'reads %s as the daily interval',
    async (query) => {
      expect((await candles(query)).interval).toBe('1d');
    },
  );

  it.each(['?start=2024-11-31', '?end=tomorrow', '?start=1732579200'])(
    'answers %s with 400 invalid_parameter naming the parameter',
    async (query) => {
      const response = await local.get(`/candles/AAPL${query}`);
      const parameter = query.slice(1, query.indexOf('='));
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        error: {
          code: 'invalid_parameter',
          message: `invalid parameter: ${parameter} must be an ISO 8601 date or datetime`,
        },
      });
    },
  );

  it('answers 404 unknown_symbol for an untracked symbol', async () => {
    const response = await local.get('/candles/NOPE?interval=1d');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: { code: 'unknown_symbol', message: 'unknown symbol' } });
  });

  it('serves an empty series for a tracked future with no trades, written raw or encoded', async () => {
    for (const path of ['/candles/ES1!', '/candles/es1%21']) {
      const response = await local.get(path);
      expect(response.body).toEqual({
        symbol: 'ES1!',
        interval: '1d',
        bars: [],
        partial_bar_included: false,
      });
    }
  });

  it('answers 400 missing_symbols for /prices/latest without symbols', async () => {
    for (const query of ['', '?symbols=', '?symbols=,,']) {
      const response = await local.get(`/prices/latest${query}`);
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ error: { code: 'missing_symbols', message: 'missing symbols' } });
    }
  });
});
