import { describe, expect, it } from 'vitest';
import { getLatestPrices } from '#domain/market-data/latest-prices';
import { latestPricesQuerySchema } from '#domain/market-data/prices';
import { MissingSymbolsError } from '#domain/requests/errors';
import { parseParams } from '#domain/requests/query-params';
import { InMemoryPriceStore } from '../../../support/fakes.ts';

const store = new InMemoryPriceStore();
await store.seed(
  ['AAPL', 'MSFT', 'ES1!'].map((symbol, index) => ({
    symbol,
    price: 100 + index,
    volume: 10 * (index + 1),
    timestamp: 1_732_890_600_000,
    tradeId: `t${index}`,
  })),
);
const latest = (query: Record<string, string>) =>
  getLatestPrices(parseParams(latestPricesQuerySchema, query), store);

describe('getLatestPrices', () => {
  it('returns price items in the order of the symbols parameter', async () => {
    expect(await latest({ symbols: 'es1!,aapl,msft' })).toEqual({
      items: [
        { symbol: 'ES1!', price: 102, volume: 30 },
        { symbol: 'AAPL', price: 100, volume: 10 },
        { symbol: 'MSFT', price: 101, volume: 20 },
      ],
    });
  });

  it('omits symbols with no recorded trade, without error', async () => {
    expect(await latest({ symbols: 'NOPE,MSFT,ZZZZ' })).toEqual({
      items: [{ symbol: 'MSFT', price: 101, volume: 20 }],
    });
  });

  it('answers repeated symbols once, at their first place', async () => {
    expect((await latest({ symbols: 'MSFT,AAPL,msft' })).items.map(({ symbol }) => symbol)).toEqual([
      'MSFT',
      'AAPL',
    ]);
  });

  it.each<Record<string, string>>([{}, { symbols: '' }, { symbols: ' , ,' }])(
    'throws missing_symbols for %j',
    async (query) => {
      await expect(latest(query)).rejects.toBeInstanceOf(MissingSymbolsError);
    },
  );
});
