import { describe, expect, it } from 'vitest';
import { encodeCursor } from '#domain/requests/page-cursor';
import { parseParams } from '#domain/requests/query-params';
import { currentSetupsQuerySchema, listCurrentSetups } from '#domain/strat/current-setups';
import type { SetupRow } from '#domain/strat/setups';
import type { Timeframe } from '#domain/strat/timeframes';
import { InMemorySetupStore, InMemoryStateStore } from '../../../support/fakes.ts';

const row = (symbol: string, timeframe: Timeframe): SetupRow => ({
  symbol,
  timeframe,
  shape: '2u',
  in_force: false,
  p3: false,
  pmg: null,
  continuation: false,
  sector: 'Information Technology',
});

const setups = new InMemorySetupStore();
for (const symbol of ['AAPL', 'MSFT', 'NVDA', 'TSLA']) {
  for (const timeframe of ['15', 'D', 'W'] as const)
    setups.rows.set(`${timeframe}#${symbol}`, row(symbol, timeframe));
}
const ports = { states: new InMemoryStateStore(), setups };

/** Every page, following the position each page gives (what the Link header's cursor carries). */
async function allPages(query: Record<string, string>) {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = await listCurrentSetups(
      parseParams(currentSetupsQuerySchema, { ...query, ...(cursor ? { cursor } : {}) }),
      ports,
    );
    pages.push(page.body.items.map(({ symbol, timeframe }) => `${symbol}/${timeframe}`));
    cursor = page.next ? encodeCursor(page.next) : undefined;
  } while (cursor);
  return pages;
}

describe('listCurrentSetups paging', () => {
  it('pages every row once in symbol then timeframe order, a page ending inside a symbol', async () => {
    const pages = await allPages({ limit: '5' });
    expect(pages.map((page) => page.length)).toEqual([5, 5, 2]);
    expect(pages.flat()).toEqual(
      ['AAPL', 'MSFT', 'NVDA', 'TSLA'].flatMap((symbol) => ['15', 'D', 'W'].map((tf) => `${symbol}/${tf}`)),
    );
  });

  it('pages a timeframes filter and a symbols filter', async () => {
    expect(await allPages({ timeframes: 'w,d', limit: '3' })).toEqual([
      ['AAPL/D', 'AAPL/W', 'MSFT/D'],
      ['MSFT/W', 'NVDA/D', 'NVDA/W'],
      ['TSLA/D', 'TSLA/W'],
    ]);
  });

  it('gives no next page when everything fits', async () => {
    const page = await listCurrentSetups(parseParams(currentSetupsQuerySchema, { limit: '12' }), ports);
    expect(page.body.items).toHaveLength(12);
    expect(page.next).toBeUndefined();
  });
});
