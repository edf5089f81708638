import { describe, expect, it } from 'vitest';
import { getInstrument, listInstruments } from '#domain/market-data/instrument-queries';
import { listInstrumentsQuerySchema } from '#domain/market-data/instruments';
import { InvalidParameterError, UnknownSymbolError } from '#domain/requests/errors';
import { encodeCursor } from '#domain/requests/page-cursor';
import { parseParams } from '#domain/requests/query-params';
import { instrument } from '../../../support/builders.ts';
import { InMemoryInstrumentCatalog } from '../../../support/fakes.ts';

const catalog = new InMemoryInstrumentCatalog(
  ['MSFT', 'AAPL', 'AA', 'MAA', 'ES1!', 'NQ1!', 'BRK.B', 'ZTS'].map((symbol) => instrument(symbol)),
);
const list = (query: Record<string, string>) =>
  listInstruments(parseParams(listInstrumentsQuerySchema, query), catalog).then(({ body }) =>
    body.items.map(({ symbol }) => symbol),
  );

/** Every page of a listing, following the position each page gives, as the Link header's cursor does. */
async function allPages(query: Record<string, string>) {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = await listInstruments(
      parseParams(listInstrumentsQuerySchema, { ...query, ...(cursor ? { cursor } : {}) }),
      catalog,
    );
    pages.push(page.body.items.map(({ symbol }) => symbol));
    cursor = page.next ? encodeCursor(page.next) : undefined;
  } while (cursor);
  return pages;
}

describe('listInstruments paging', () => {
  it('pages the whole listing once, each page ending where the next starts', async () => {
    expect(await allPages({ limit: '3' })).toEqual([
      ['AA', 'AAPL', 'BRK.B'],
      ['ES1!', 'MAA', 'MSFT'],
      ['NQ1!', 'ZTS'],
    ]);
  });

  it('gives no next page when the last page is exactly full', async () => {
    expect(await allPages({ limit: '4' })).toEqual([
      ['AA', 'AAPL', 'BRK.B', 'ES1!'],
      ['MAA', 'MSFT', 'NQ1!', 'ZTS'],
    ]);
  });

  it('pages a symbols filter and a search the same way', async () => {
    expect(await allPages({ symbols: 'zts,aapl,msft', limit: '2' })).toEqual([['AAPL', 'MSFT'], ['ZTS']]);
    expect(await allPages({ search: 'a', limit: '2' })).toEqual([['AA', 'AAPL'], ['MAA']]);
  });

  it('refuses a cursor it did not give as invalid_parameter', () => {
    expect(() => parseParams(listInstrumentsQuerySchema, { cursor: 'abc' })).toThrow(
      'invalid parameter: cursor is not a cursor from a Link header of this route',
    );
    expect(() => parseParams(listInstrumentsQuerySchema, { cursor: encodeCursor({ other: 'x' }) })).toThrow(
      InvalidParameterError,
    );
  });
});

describe('listInstruments', () => {
  it('orders the universe by symbol', async () => {
    expect(await list({})).toEqual(['AA', 'AAPL', 'BRK.B', 'ES1!', 'MAA', 'MSFT', 'NQ1!', 'ZTS']);
  });

  it('filters by a case-insensitive substring of the symbol', async () => {
    expect(await list({ search: 'aa' })).toEqual(['AA', 'AAPL', 'MAA']);
    expect(await list({ search: '1!' })).toEqual(['ES1!', 'NQ1!']);
  });

  it('returns the requested symbols in symbol order, skipping unknown ones', async () => {
    expect(await list({ symbols: 'msft,zzz,aapl' })).toEqual(['AAPL', 'MSFT']);
  });

  it('applies search and symbols together', async () => {
    expect(await list({ symbols: 'msft,aapl,maa', search: 'A' })).toEqual(['AAPL', 'MAA']);
  });

  it('applies the limit after filtering and ordering', async () => {
    expect(await list({ limit: '2' })).toEqual(['AA', 'AAPL']);
    expect(await list({ symbols: 'zts,msft,aapl', limit: '2' })).toEqual(['AAPL', 'MSFT']);
  });

  it('returns no items when nothing matches', async () => {
    expect(await list({ search: 'QQQQ' })).toEqual([]);
  });
});

describe('getInstrument', () => {
  it('returns the instrument', async () => {
    expect(await getInstrument('ES1!', catalog)).toEqual(instrument('ES1!'));
  });

  it('throws unknown_symbol for an untracked symbol', async () => {
    await expect(getInstrument('NOPE', catalog)).rejects.toBeInstanceOf(UnknownSymbolError);
  });
});
