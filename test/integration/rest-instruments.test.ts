import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instrumentListSchema, instrumentSchema } from '#domain/market-data/instruments';
import { UNIVERSE_CSV } from '#scripts/lib/project';
import { parseUniverseCsv } from '#scripts/lib/universe';
import { startTestStack, type TestStack } from '../support/local-stack.ts';

let local: TestStack;
const universe = parseUniverseCsv(readFileSync(UNIVERSE_CSV, 'utf8'));
const sortedSymbols = universe.map(({ symbol }) => symbol).sort();

beforeAll(async () => {
  local = await startTestStack();
});
afterAll(async () => {
  await local.stop();
});

async function symbolsOf(query: string): Promise<string[]> {
  const response = await local.get(`/instruments${query}`);
  expect(response.status).toBe(200);
  return instrumentListSchema.parse(response.body).items.map(({ symbol }) => symbol);
}

describe('GET /instruments over HTTP', () => {
  it('seeds the universe on first start and returns the first 50 by symbol by default', async () => {
    expect(local.stack.seeded).toBe(true);
    expect(await symbolsOf('')).toEqual(sortedSymbols.slice(0, 50));
  });

  it.each([
    ['?limit=0', 1],
    ['?limit=-3', 1],
    ['?limit=1', 1],
    ['?limit=200', 200],
    ['?limit=201', 200],
    ['?limit=100000', 200],
    ['?limit=', 50],
  ])('clamps %s to %i items', async (query, count) => {
    expect(await symbolsOf(query)).toEqual(sortedSymbols.slice(0, count));
  });

  it('answers 400 invalid_parameter naming limit when it is not a number', async () => {
    const response = await local.get('/instruments?limit=lots');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: { code: 'invalid_parameter', message: 'invalid parameter: limit must be a number' },
    });
  });

  it('filters by a case-insensitive substring of the symbol', async () => {
    const expected = sortedSymbols.filter((symbol) => symbol.includes('AP'));
    expect(expected.length).toBeGreaterThan(2);
    expect(await symbolsOf('?search=aP&limit=200')).toEqual(expected);
  });

  it('finds the futures with a search on "1!"', async () => {
    expect(await symbolsOf(`?search=${encodeURIComponent('1!')}`)).toEqual(['ES1!', 'NQ1!', 'RTY1!', 'YM1!']);
  });

  it('returns the requested symbols normalized and ordered by symbol, omitting unknown ones', async () => {
    expect(await symbolsOf('?symbols=msft,%20aapl,NOPE,es1!')).toEqual(['AAPL', 'ES1!', 'MSFT']);
  });

  it('combines symbols and search: only symbols matching both', async () => {
    expect(await symbolsOf('?symbols=MSFT,AAPL,MAA,NVDA&search=aa')).toEqual(['AAPL', 'MAA']);
  });

  it('keeps only the first 250 symbols of a longer list', async () => {
    const requested = [...sortedSymbols].reverse().slice(0, 300);
    const found = await symbolsOf(`?symbols=${requested.join(',')}&limit=200`);
    const kept = requested.slice(0, 250).sort();
    expect(found).toEqual(kept.slice(0, 200));
    expect(found).not.toContain(requested[260]);
  });

  it('applies the limit after the symbols filter', async () => {
    expect(await symbolsOf('?symbols=ZTS,MSFT,AAPL,A&limit=2')).toEqual(['A', 'AAPL']);
  });

  it('returns complete instruments, with an empty sector for futures', async () => {
    const response = await local.get('/instruments?symbols=ES1!,AAPL');
    expect(response.body.items).toEqual([
      universe.find(({ symbol }) => symbol === 'AAPL'),
      {
        symbol: 'ES1!',
        name: 'E-mini S&P 500 Futures',
        market: 'futures',
        exchange: 'CME',
        type: 'FUT',
        sector: '',
        active: true,
      },
    ]);
  });
});

describe('GET /instruments/{symbol} over HTTP', () => {
  it.each(['ES1!', 'ES1%21', 'es1!', 'es1%21'])('finds the future written %s', async (written) => {
    const response = await local.get(`/instruments/${written}`);
    expect(response.status).toBe(200);
    expect(instrumentSchema.parse(response.body).symbol).toBe('ES1!');
  });

  it('returns the instrument unwrapped', async () => {
    const response = await local.get('/instruments/aapl');
    expect(response.body).toEqual(universe.find(({ symbol }) => symbol === 'AAPL'));
  });

  it.each(['NOPE', '%20', 'X'.repeat(100), '%ZZ'])('answers 404 unknown_symbol for %s', async (symbol) => {
    const response = await local.get(`/instruments/${symbol}`);
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: { code: 'unknown_symbol', message: 'unknown symbol' } });
  });
});
