import { describe, expect, it } from 'vitest';
import type { Trade } from '#domain/market-data/bars';
import { ingestTrades } from '#use-cases/ingest-trades';
import { inMemoryIngestPorts } from '../../support/fakes.ts';

const open = Date.parse('2024-11-26T14:30:00Z');
const trade = (symbol: string, minute: number, price: number, size: number, id: number): Trade => ({
  symbol,
  price,
  size,
  timestamp: open + minute * 60_000,
  tradeId: String(id).padStart(6, '0'),
});
const ports = () => inMemoryIngestPorts();

describe('ingestTrades', () => {
  it('writes the latest price per symbol, the ledger, and the bars a later period completed', async () => {
    const stores = ports();
    const outcome = await ingestTrades(
      [trade('AAPL', 0, 100, 10, 1), trade('MSFT', 0, 50, 5, 2), trade('AAPL', 1, 101, 20, 3)],
      stores,
    );

    expect(outcome).toMatchObject({
      applied: 3,
      duplicates: 0,
      outsideSession: 0,
      invalid: 0,
      failedSymbols: [],
    });
    expect(await stores.prices.getMany(['AAPL', 'MSFT'])).toEqual([
      { symbol: 'AAPL', price: 101, volume: 20, timestamp: open + 60_000, tradeId: '000003' },
      { symbol: 'MSFT', price: 50, volume: 5, timestamp: open, tradeId: '000002' },
    ]);
    expect(await stores.bars.query({ symbol: 'AAPL', interval: '1m' }, { limit: 10 })).toEqual([
      { time: open / 1000, open: 100, high: 100, low: 100, close: 100, volume: 10 },
    ]);
    expect((await stores.ledgers.get('AAPL'))?.ledger.forming['1d']).toMatchObject({
      open: 100,
      close: 101,
      volume: 30,
    });
  });

  it('changes nothing when the same batch is delivered again', async () => {
    const stores = ports();
    const batch = [trade('AAPL', 0, 100, 10, 1), trade('AAPL', 1, 101, 20, 2)];
    await ingestTrades(batch, stores);
    const version = (await stores.ledgers.get('AAPL'))?.version;

    const again = await ingestTrades(batch, stores);

    expect(again).toMatchObject({ applied: 0, duplicates: 2 });
    expect((await stores.ledgers.get('AAPL'))?.version).toBe(version);
    expect((await stores.ledgers.get('AAPL'))?.ledger.forming['1d']?.volume).toBe(30);
  });

  it('reports a symbol whose ledger another writer changed meanwhile, and writes the others', async () => {
    const stores = ports();
    await ingestTrades([trade('AAPL', 0, 100, 10, 1)], stores);
    const racing = {
      ...stores,
      ledgers: Object.assign(Object.create(stores.ledgers) as typeof stores.ledgers, {
        put: async (ledger: Parameters<typeof stores.ledgers.put>[0], version: number | undefined) =>
          ledger.symbol === 'AAPL' ? false : stores.ledgers.put(ledger, version),
      }),
    };

    const outcome = await ingestTrades([trade('AAPL', 1, 101, 1, 2), trade('MSFT', 1, 50, 1, 3)], racing);

    expect(outcome.failedSymbols).toEqual(['AAPL']);
    expect((await stores.ledgers.get('MSFT'))?.ledger.price?.price).toBe(50);
  });

  it('ignores trades outside the session and writes nothing for them', async () => {
    const stores = ports();
    const outcome = await ingestTrades(
      [{ ...trade('AAPL', 0, 100, 1, 1), timestamp: open - 60_000 }],
      stores,
    );
    expect(outcome).toMatchObject({ applied: 0, outsideSession: 1 });
    expect(await stores.ledgers.get('AAPL')).toBeUndefined();
    expect(await stores.prices.getMany(['AAPL'])).toEqual([]);
  });
});

describe('ingestTrades and the Strat engine', () => {
  const at = (day: string, hhmm: string) => Date.parse(`${day}T${hhmm}:00Z`);
  let id = 0;
  const daily = (symbol: string, scale: number) =>
    (
      [
        ['2024-11-19', [100, 105, 95]],
        ['2024-11-20', [101, 103, 99]],
        ['2024-11-21', [102, 104]],
      ] as const
    ).flatMap(([day, prices]) =>
      prices.map((price, index) => ({
        symbol,
        price: price * scale,
        size: 1,
        timestamp: at(day, `15:0${index}`),
        tradeId: String(++id).padStart(6, '0'),
      })),
    );
  const crossing = (symbol: string, scale: number, minute: string) => ({
    symbol,
    price: 104.5 * scale,
    size: 1,
    timestamp: at('2024-11-22', `15:${minute}`),
    tradeId: String(++id).padStart(6, '0'),
  });

  it('appends the daily in-force alerts once, a simultaneous break of two futures, and the changed states', async () => {
    const stores = inMemoryIngestPorts(at('2024-11-22', '16:00'));
    await ingestTrades([...daily('ES1!', 50), ...daily('NQ1!', 200)], stores);
    const batch = [crossing('ES1!', 50, '10'), crossing('NQ1!', 200, '12')];

    const outcome = await ingestTrades(batch, stores);

    const dailyAlerts = stores.alerts.events.filter(({ body }) => body.timeframe === 'D');
    expect(dailyAlerts.map(({ body }) => body)).toEqual([
      {
        symbol: 'ES1!',
        timeframe: 'D',
        direction: 'bullish',
        shape: '1-2U',
        price: 5225,
        triggered_at: '2024-11-22T15:10:00.000Z',
        cc: '2U',
      },
      {
        symbol: 'NQ1!',
        timeframe: 'D',
        direction: 'bullish',
        shape: '1-2U',
        price: 20900,
        triggered_at: '2024-11-22T15:12:00.000Z',
        cc: '2U',
      },
    ]);
    expect(stores.breaks.events.map(({ body }) => body)).toContainEqual({
      timeframe: 'D',
      direction: 'bullish',
      threshold: 2,
      symbols: ['ES1!', 'NQ1!'],
      triggered_at: '2024-11-22T15:12:00.000Z',
    });
    expect(outcome.alerts).toBe(stores.alerts.events.length);
    expect(stores.states.states.get('ES1!')?.setups.find((row) => row.timeframe === 'D')).toMatchObject({
      shape: '1-2U',
      in_force: true,
    });
    expect(
      [...stores.setups.rows.values()].some((row) => row.symbol === 'NQ1!' && row.timeframe === 'D'),
    ).toBe(true);

    const alertsBefore = stores.alerts.events.length;
    const breaksBefore = stores.breaks.events.length;
    await ingestTrades(batch, stores);
    expect(stores.alerts.events).toHaveLength(alertsBefore);
    expect(stores.breaks.events).toHaveLength(breaksBefore);
  });
});
