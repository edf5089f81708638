import { describe, expect, it } from 'vitest';
import { instrumentSchema } from '#domain/market-data/instruments';
import { createHandler as createGetInstrument } from '#handlers/rest/get-instrument';
import { createHandler as createListInstruments } from '#handlers/rest/list-instruments';
import { instrument } from '../../../support/builders.ts';
import { bodyOf, context, restEvent } from '../../../support/events.ts';
import { InMemoryInstrumentCatalog } from '../../../support/fakes.ts';

const catalog = new InMemoryInstrumentCatalog(
  ['AAPL', 'MSFT', 'ES1!', 'BRK.B'].map((symbol) => instrument(symbol)),
);
const listInstruments = createListInstruments({ instruments: () => catalog });
const getInstrument = createGetInstrument({ instruments: () => catalog });
const list = (query?: Record<string, string>) =>
  listInstruments(restEvent({ resource: '/api/market/v1/instruments', query }), context());
const get = (symbol: string) =>
  getInstrument(
    restEvent({ resource: '/api/market/v1/instruments/{symbol}', pathParameters: { symbol } }),
    context(),
  );

describe('GET /instruments handler', () => {
  it('answers 200 with JSON items', async () => {
    const result = await list({ symbols: 'msft,aapl' });
    expect(result.statusCode).toBe(200);
    expect(result.headers?.['Content-Type']).toBe('application/json');
    expect(bodyOf(result)).toEqual({ items: [instrument('AAPL'), instrument('MSFT')] });
  });

  it('answers 400 invalid_parameter naming limit for a non-numeric limit', async () => {
    const result = await list({ limit: 'ten' });
    expect(result.statusCode).toBe(400);
    expect(bodyOf(result)).toEqual({
      error: { code: 'invalid_parameter', message: 'invalid parameter: limit must be a number' },
    });
  });

  it('clamps the limit instead of failing', async () => {
    const result = await list({ limit: '0' });
    expect(result.statusCode).toBe(200);
    expect((bodyOf(result) as { items: unknown[] }).items).toHaveLength(1);
  });
});

describe('GET /instruments/{symbol} handler', () => {
  it.each([
    ['aapl', 'AAPL'],
    ['ES1!', 'ES1!'],
    ['es1%21', 'ES1!'],
    ['brk.b', 'BRK.B'],
  ])('finds %j as the unwrapped instrument %s', async (raw, symbol) => {
    const result = await get(raw);
    expect(result.statusCode).toBe(200);
    expect(instrumentSchema.parse(bodyOf(result))).toEqual(instrument(symbol));
  });

  it.each(['ZZZZ', '%E0%A4%A', '', '%20', 'X'.repeat(300)])(
    'answers 404 unknown_symbol for %j',
    async (raw) => {
      const result = await get(raw);
      expect(result.statusCode).toBe(404);
      expect(bodyOf(result)).toEqual({ error: { code: 'unknown_symbol', message: 'unknown symbol' } });
    },
  );

  it('answers 500 internal_error with no detail when the catalog fails', async () => {
    const failing = createGetInstrument({
      instruments: () =>
        Object.assign(new InMemoryInstrumentCatalog(), {
          get: async () => {
            throw new Error('DynamoDB is down: secret detail');
          },
        }),
    });
    const result = await failing(
      restEvent({ resource: '/api/market/v1/instruments/{symbol}', pathParameters: { symbol: 'AAPL' } }),
      context(),
    );
    expect(result.statusCode).toBe(500);
    expect(bodyOf(result)).toEqual({ error: { code: 'internal_error', message: 'internal error' } });
    expect(result.body).not.toContain('secret detail');
  });
});

describe('GET /instruments paging by Link header', () => {
  it('links each page to the next with the same parameters and a cursor, and the last page to none', async () => {
    const seen: string[] = [];
    let query: Record<string, string> | undefined = { limit: '3', search: '' };
    let pages = 0;
    while (query) {
      const result = await list(query);
      pages += 1;
      seen.push(...(bodyOf(result) as { items: { symbol: string }[] }).items.map(({ symbol }) => symbol));
      const link = result.headers?.Link as string | undefined;
      if (link === undefined) break;
      const match = /^<(\?[^>]*)>; rel="next"$/.exec(link);
      expect(match).not.toBeNull();
      const next = new URL(match?.[1] ?? '', 'https://api.example.com/api/market/v1/instruments?limit=3');
      expect(next.pathname).toBe('/api/market/v1/instruments');
      expect(next.searchParams.get('limit')).toBe('3');
      query = Object.fromEntries(next.searchParams);
    }
    expect(pages).toBe(2);
    expect(seen).toEqual(['AAPL', 'BRK.B', 'ES1!', 'MSFT']);
  });
});
