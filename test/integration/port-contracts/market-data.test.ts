import { describe, expect, it } from 'vitest';
import { DynamoBarStore } from '#adapters/dynamo/bar-store';
import { DynamoInstrumentCatalog } from '#adapters/dynamo/instrument-catalog';
import { DynamoLedgerStore } from '#adapters/dynamo/ledger-store';
import { DynamoPriceStore } from '#adapters/dynamo/price-store';
import { DynamoTradeLog } from '#adapters/dynamo/trade-log';
import type { Bar } from '#domain/market-data/bars';
import type { SymbolLedger } from '#domain/market-data/ledger';
import type {
  BarStore,
  InstrumentCatalog,
  LedgerStore,
  PriceStore,
  SessionTradeLog,
  TradeLogEntry,
} from '#domain/market-data/ports';
import type { SymbolPrice } from '#domain/market-data/prices';
import { compactLogEntry } from '#domain/market-data/trade-log';
import type { CommittedWrites } from '#use-cases/ingest-trades';
import { instrument } from '../../support/builders.ts';
import {
  InMemoryBarStore,
  InMemoryInstrumentCatalog,
  InMemoryLedgerStore,
  InMemoryPriceStore,
  InMemoryTradeLog,
} from '../../support/fakes.ts';
import { usePortImplementations } from '../../support/port-contracts.ts';

/** The market-data ports (functions/domain/market-data/ports.ts): each fake against its DynamoDB adapter. */
const implementations = usePortImplementations();
const minuteMs = Date.parse('2024-11-26T15:31:00Z');

function bar(time: number, close = 100): Bar {
  return { time, open: close - 1, high: close + 1, low: close - 2, close, volume: 1_000 };
}

/** A ledger with every field a fold leaves in it. */
function ledger(symbol: string, price = 100): SymbolLedger {
  return {
    symbol,
    lastTrade: { timestamp: minuteMs + 5_000, tradeId: `${symbol}-${price}` },
    recentTrades: {
      afterMs: minuteMs - 60_000,
      timestamps: [minuteMs + 5_000],
      tradeIds: [`${symbol}-${price}`],
    },
    price: { price, volume: 100, timestamp: minuteMs + 5_000, tradeId: `${symbol}-${price}` },
    forming: {
      '1m': { ...bar(minuteMs / 1_000, price), startMs: minuteMs, endMs: minuteMs + 60_000 },
      '1d': {
        ...bar(Date.parse('2024-11-26T00:00:00Z') / 1_000, price),
        startMs: minuteMs,
        endMs: minuteMs + 1,
      },
    },
    recent: { '15m': [bar(minuteMs / 1_000 - 900, price - 1), bar(minuteMs / 1_000 - 1_800, price - 2)] },
    fired: { '15m': { bullish: true, last: 'bullish' } },
  };
}

/** The writes a commit carries until applied, as the ingest path leaves them. */
function pending(symbol: string): CommittedWrites {
  const entry: TradeLogEntry = {
    symbol,
    minuteMs,
    version: 0,
    trades: [{ timestamp: minuteMs + 5_000, tradeId: `${symbol}-1`, price: 100, size: 100 }],
    amendments: [],
  };
  return {
    bars: [{ symbol, interval: '15m', bar: bar(minuteMs / 1_000 - 900) }],
    removedBars: [{ symbol, interval: '1m', time: minuteMs / 1_000 - 60 }],
    alerts: [],
    log: [compactLogEntry(entry)],
    batchMark: { timestamp: minuteMs + 5_000, tradeId: `${symbol}-1` },
  };
}

describe.each(
  implementations<LedgerStore<CommittedWrites>>(
    () => new InMemoryLedgerStore<CommittedWrites>(),
    async ({ client, table }) => new DynamoLedgerStore<CommittedWrites>(client, await table('ledgers')),
  ),
)('LedgerStore: $name', ({ create }) => {
  it('reads many ledgers at once, a symbol asked for twice once', async () => {
    const ledgers = await create();
    const symbols = Array.from({ length: 120 }, (_, n) => `S${String(n).padStart(3, '0')}`);
    await Promise.all(symbols.map((symbol) => ledgers.put(ledger(symbol), undefined)));
    const found = await ledgers.getMany(['S000', ...symbols, 'AAPL', 'S119']);
    expect([...found.keys()].sort()).toEqual(symbols);
    expect(found.get('S119')).toEqual({ ledger: ledger('S119'), version: 0 });
  });

  it('has no ledger of a symbol never put, alone or among others', async () => {
    const ledgers = await create();
    await ledgers.put(ledger('AAPL'), undefined);
    expect(await ledgers.get('MSFT')).toBeUndefined();
    const found = await ledgers.getMany(['MSFT', 'AAPL', 'NVDA']);
    expect([...found.keys()]).toEqual(['AAPL']);
    expect(await ledgers.getMany([])).toEqual(new Map());
  });

  it('writes a new ledger as version 0 and gives back every field and its pending writes', async () => {
    const ledgers = await create();
    expect(await ledgers.put(ledger('AAPL'), undefined, pending('AAPL'))).toBe(true);
    const stored = { ledger: ledger('AAPL'), version: 0, pending: pending('AAPL') };
    expect(await ledgers.get('AAPL')).toEqual(stored);
    expect((await ledgers.getMany(['AAPL'])).get('AAPL')).toEqual(stored);
  });

  it('writes the next version over the version read, and refuses a stale or a second first write', async () => {
    const ledgers = await create();
    await ledgers.put(ledger('AAPL', 100), undefined);
    expect(await ledgers.put(ledger('AAPL', 101), undefined)).toBe(false);
    expect(await ledgers.put(ledger('AAPL', 101), 0)).toBe(true);
    expect(await ledgers.put(ledger('AAPL', 102), 0)).toBe(false);
    expect(await ledgers.put(ledger('AAPL', 102), 2)).toBe(false);
    expect(await ledgers.get('AAPL')).toEqual({ ledger: ledger('AAPL', 101), version: 1 });
  });

  it('drops the previous version’s pending writes when the next comes without', async () => {
    const ledgers = await create();
    await ledgers.put(ledger('AAPL', 100), undefined, pending('AAPL'));
    await ledgers.put(ledger('AAPL', 101), 0);
    expect(await ledgers.get('AAPL')).toEqual({ ledger: ledger('AAPL', 101), version: 1 });
  });

  it('of two writers that read the same version, lets exactly one write', async () => {
    const ledgers = await create();
    await ledgers.put(ledger('AAPL', 100), undefined);
    const results = await Promise.all([
      ledgers.put(ledger('AAPL', 101), 0),
      ledgers.put(ledger('AAPL', 102), 0),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const won = results[0] ? 101 : 102;
    expect(await ledgers.get('AAPL')).toEqual({ ledger: ledger('AAPL', won), version: 1 });
  });

  it('of two writers creating one ledger, lets exactly one write', async () => {
    const ledgers = await create();
    const results = await Promise.all([
      ledgers.put(ledger('AAPL', 101), undefined),
      ledgers.put(ledger('AAPL', 102), undefined),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await ledgers.get('AAPL')).toEqual({ ledger: ledger('AAPL', results[0] ? 101 : 102), version: 0 });
  });

  it('stores what was put, not what its writer or a reader changes afterwards', async () => {
    const ledgers = await create();
    const written = ledger('AAPL');
    await ledgers.put(written, undefined, pending('AAPL'));
    written.forming = {};
    const read = await ledgers.get('AAPL');
    if (!read) throw new Error('the ledger was not stored');
    read.ledger.forming = {};
    read.ledger.recent?.['15m']?.push(bar(0));
    expect(await ledgers.get('AAPL')).toEqual({
      ledger: ledger('AAPL'),
      version: 0,
      pending: pending('AAPL'),
    });
  });
});

function price(symbol: string, timestamp: number, tradeId: string, value = 100): SymbolPrice {
  return { symbol, price: value, volume: 100, timestamp, tradeId };
}

/** A ledger committed with `latest` as its price. */
const pricedLedger = ({ symbol, ...latest }: SymbolPrice): SymbolLedger => ({
  ...ledger(symbol),
  price: latest,
});

describe.each(
  implementations<{ ledgers: LedgerStore; prices: PriceStore }>(
    () => {
      const ledgers = new InMemoryLedgerStore();
      return { ledgers, prices: new InMemoryPriceStore(ledgers) };
    },
    async ({ client, table }) => {
      const name = await table('ledgers');
      return { ledgers: new DynamoLedgerStore(client, name), prices: new DynamoPriceStore(client, name) };
    },
  ),
)("PriceStore, the ledgers' prices: $name", ({ create }) => {
  const sorted = (prices: SymbolPrice[]) => [...prices].sort((a, b) => a.symbol.localeCompare(b.symbol));

  it('gives the price of each committed ledger among the symbols asked for, none for a symbol without one', async () => {
    const { ledgers, prices } = await create();
    await ledgers.put(pricedLedger(price('AAPL', minuteMs, 'a1')), undefined);
    await ledgers.put(pricedLedger(price('MSFT', minuteMs, 'm1')), undefined);
    await ledgers.put({ symbol: 'TSLA', forming: {} }, undefined);

    expect(sorted(await prices.getMany(['MSFT', 'NVDA', 'AAPL', 'TSLA', 'AAPL']))).toEqual([
      price('AAPL', minuteMs, 'a1'),
      price('MSFT', minuteMs, 'm1'),
    ]);
    expect(await prices.getMany(['NVDA'])).toEqual([]);
    expect(await prices.getMany([])).toEqual([]);
  });

  it('gives the price of the latest commit, an earlier trade included (an amendment restated it)', async () => {
    const { ledgers, prices } = await create();
    await ledgers.put(pricedLedger(price('AAPL', minuteMs, 'a2', 101)), undefined);
    await ledgers.put(pricedLedger(price('AAPL', minuteMs - 10, 'a1', 99)), 0);

    expect(await prices.getMany(['AAPL'])).toEqual([price('AAPL', minuteMs - 10, 'a1', 99)]);
  });

  it('is unchanged by a commit another writer lost', async () => {
    const { ledgers, prices } = await create();
    await ledgers.put(pricedLedger(price('AAPL', minuteMs, 'a1', 100)), undefined);
    expect(await ledgers.put(pricedLedger(price('AAPL', minuteMs + 1, 'a2', 101)), undefined)).toBe(false);

    expect(await prices.getMany(['AAPL'])).toEqual([price('AAPL', minuteMs, 'a1', 100)]);
  });
});

describe.each(
  implementations<BarStore>(
    () => new InMemoryBarStore(),
    async ({ client, table }) => new DynamoBarStore(client, await table('bars')),
  ),
)('BarStore: $name', ({ create }) => {
  const day = 86_400;
  const first = Date.parse('2024-11-01T00:00:00Z') / 1_000;
  const days = (count: number) => Array.from({ length: count }, (_, n) => bar(first + n * day, 100 + n));

  it('gives a range’s bars oldest first, bounds included, only of the series asked for', async () => {
    const bars = await create();
    await bars.putMany([
      ...days(5).map((entry) => ({ symbol: 'AAPL', interval: '1d' as const, bar: entry })),
      { symbol: 'AAPL', interval: '1w', bar: bar(first) },
      { symbol: 'MSFT', interval: '1d', bar: bar(first + day) },
    ]);
    const series = { symbol: 'AAPL', interval: '1d' } as const;
    expect(await bars.query(series, { limit: 10 })).toEqual(days(5));
    expect(await bars.query(series, { fromTime: first + day, toTime: first + 3 * day, limit: 10 })).toEqual(
      days(4).slice(1),
    );
    expect(await bars.query(series, { fromTime: first + day + 1, limit: 10 })).toEqual(days(5).slice(2));
    expect(await bars.query(series, { toTime: first - 1, limit: 10 })).toEqual([]);
    expect(await bars.query({ symbol: 'NVDA', interval: '1d' }, { limit: 10 })).toEqual([]);
  });

  it('gives the most recent `limit` bars of a range, oldest first', async () => {
    const bars = await create();
    await bars.putMany(days(8).map((entry) => ({ symbol: 'AAPL', interval: '1d' as const, bar: entry })));
    const series = { symbol: 'AAPL', interval: '1d' } as const;
    expect(await bars.query(series, { limit: 3 })).toEqual(days(8).slice(5));
    expect(await bars.query(series, { toTime: first + 4 * day, limit: 2 })).toEqual(days(5).slice(3));
  });

  it('refuses a range whose start is after its end', async () => {
    const bars = await create();
    await expect(
      bars.query({ symbol: 'AAPL', interval: '1d' }, { fromTime: first + day, toTime: first, limit: 10 }),
    ).rejects.toThrow();
  });

  it('keeps the last of two bars of one time put in one write, and removes one named twice', async () => {
    const bars = await create();
    await bars.putMany([
      { symbol: 'AAPL', interval: '1d', bar: bar(first, 100) },
      { symbol: 'AAPL', interval: '1d', bar: bar(first, 105) },
      { symbol: 'AAPL', interval: '1d', bar: bar(first + day, 106) },
    ]);
    expect(await bars.query({ symbol: 'AAPL', interval: '1d' }, { limit: 10 })).toEqual([
      bar(first, 105),
      bar(first + day, 106),
    ]);
    await bars.deleteMany([
      { symbol: 'AAPL', interval: '1d', time: first },
      { symbol: 'AAPL', interval: '1d', time: first },
    ]);
    expect(await bars.query({ symbol: 'AAPL', interval: '1d' }, { limit: 10 })).toEqual([
      bar(first + day, 106),
    ]);
  });

  it('replaces a bar put again at the same time', async () => {
    const bars = await create();
    await bars.putMany([{ symbol: 'AAPL', interval: '1d', bar: bar(first, 100) }]);
    await bars.putMany([{ symbol: 'AAPL', interval: '1d', bar: bar(first, 105) }]);
    expect(await bars.query({ symbol: 'AAPL', interval: '1d' }, { limit: 10 })).toEqual([bar(first, 105)]);
  });

  it('removes bars, and removing one that is gone (or an empty list) is no error', async () => {
    const bars = await create();
    await bars.putMany(days(3).map((entry) => ({ symbol: 'AAPL', interval: '1d' as const, bar: entry })));
    await bars.deleteMany([
      { symbol: 'AAPL', interval: '1d', time: first + day },
      { symbol: 'AAPL', interval: '1d', time: first + 10 * day },
      { symbol: 'MSFT', interval: '1d', time: first },
    ]);
    await bars.deleteMany([]);
    await bars.putMany([]);
    expect(await bars.query({ symbol: 'AAPL', interval: '1d' }, { limit: 10 })).toEqual([
      days(3)[0],
      days(3)[2],
    ]);
  });

  it('stores a bar as it was put, not as its writer changes it afterwards', async () => {
    const bars = await create();
    const written = bar(first, 100);
    await bars.putMany([{ symbol: 'AAPL', interval: '1d', bar: written }]);
    written.close = 1;
    expect(await bars.query({ symbol: 'AAPL', interval: '1d' }, { limit: 1 })).toEqual([bar(first, 100)]);
  });
});

function logEntry(symbol: string, minute: number, version: number, overrides: Partial<TradeLogEntry> = {}) {
  return {
    symbol,
    minuteMs: minute,
    version,
    trades: [
      { timestamp: minute + 1_000 + version, tradeId: `${symbol}-${version}-a`, price: 100.25, size: 100 },
      {
        timestamp: minute + 59_999,
        tradeId: `${symbol}-${version}-b`,
        price: 100.5,
        size: 3,
        volumeOnly: true,
      },
    ],
    amendments: [],
    ...overrides,
  } satisfies TradeLogEntry;
}

describe.each(
  implementations<SessionTradeLog>(
    () => new InMemoryTradeLog(),
    async ({ client, table }) => new DynamoTradeLog(client, await table('tradeLog')),
  ),
)('SessionTradeLog: $name', ({ create }) => {
  it('reads a minute’s entries in commit order, trades and amendments as written', async () => {
    const log = await create();
    const amended = logEntry('AAPL', minuteMs, 12, {
      amendments: [
        { timestamp: minuteMs + 1_000, amends: 'AAPL-3-a' },
        {
          timestamp: minuteMs + 1_002,
          amends: 'AAPL-3-b',
          corrected: { price: 101, size: 50, tradeId: 'c1' },
        },
      ],
    });
    await log.write([amended, logEntry('AAPL', minuteMs, 3)]);
    await log.write([logEntry('AAPL', minuteMs, 100)]);
    expect(await log.readMinute('AAPL', minuteMs)).toEqual([
      logEntry('AAPL', minuteMs, 3),
      amended,
      logEntry('AAPL', minuteMs, 100),
    ]);
  });

  it('keeps each minute and symbol apart', async () => {
    const log = await create();
    await log.write([
      logEntry('AAPL', minuteMs, 1),
      logEntry('AAPL', minuteMs + 60_000, 2),
      logEntry('AAPL', minuteMs - 60_000, 0),
      logEntry('MSFT', minuteMs, 1),
    ]);
    expect(await log.readMinute('AAPL', minuteMs)).toEqual([logEntry('AAPL', minuteMs, 1)]);
    expect(await log.readMinute('AAPL', minuteMs + 60_000)).toEqual([logEntry('AAPL', minuteMs + 60_000, 2)]);
    expect(await log.readMinute('MSFT', minuteMs)).toEqual([logEntry('MSFT', minuteMs, 1)]);
    expect(await log.readMinute('NVDA', minuteMs)).toEqual([]);
  });

  it('finds the next minute holding an entry of the symbol, within the same session date', async () => {
    const log = await create();
    const nextDay = minuteMs + 86_400_000;
    await log.write([
      logEntry('AAPL', minuteMs, 1),
      logEntry('AAPL', minuteMs, 2),
      logEntry('AAPL', minuteMs + 3 * 60_000, 3),
      logEntry('AAPL', minuteMs + 5 * 60_000, 4),
      logEntry('MSFT', minuteMs + 60_000, 1),
      logEntry('AAPL', nextDay, 5),
    ]);
    expect(await log.nextMinute('AAPL', minuteMs - 60_000)).toBe(minuteMs);
    expect(await log.nextMinute('AAPL', minuteMs)).toBe(minuteMs + 3 * 60_000);
    expect(await log.nextMinute('AAPL', minuteMs + 60_000)).toBe(minuteMs + 3 * 60_000);
    expect(await log.nextMinute('AAPL', minuteMs + 3 * 60_000)).toBe(minuteMs + 5 * 60_000);
    expect(await log.nextMinute('AAPL', minuteMs + 5 * 60_000)).toBeUndefined();
    expect(await log.nextMinute('NVDA', minuteMs)).toBeUndefined();
  });

  it('changes nothing when an entry is written again (its version is its identity)', async () => {
    const log = await create();
    await log.write([logEntry('AAPL', minuteMs, 1)]);
    await log.write([logEntry('AAPL', minuteMs, 1), logEntry('AAPL', minuteMs, 2)]);
    await log.write([]);
    expect(await log.readMinute('AAPL', minuteMs)).toEqual([
      logEntry('AAPL', minuteMs, 1),
      logEntry('AAPL', minuteMs, 2),
    ]);
  });
});

describe.each(
  implementations<InstrumentCatalog>(
    () => new InMemoryInstrumentCatalog(),
    async ({ client, table }) => new DynamoInstrumentCatalog(client, await table('instruments')),
  ),
)('InstrumentCatalog: $name', ({ create }) => {
  const symbols = ['MSFT', 'AAPL', 'AMZN', 'NVDA', 'AMD', 'META', 'BRK.B'];
  const sorted = (found: { symbol: string }[]) => found.map(({ symbol }) => symbol).sort();

  it('gets an instrument by symbol, and the ones among many that exist', async () => {
    const catalog = await create();
    await catalog.putAll(symbols.map((symbol) => instrument(symbol)));
    expect(await catalog.get('AAPL')).toEqual(instrument('AAPL'));
    expect(await catalog.get('GOOG')).toBeUndefined();
    expect(sorted(await catalog.getMany(['NVDA', 'GOOG', 'AAPL', 'NVDA']))).toEqual(['AAPL', 'NVDA']);
    expect(await catalog.getMany([])).toEqual([]);
  });

  it('lists in symbol order, at most `limit`, after `after`, containing `search`', async () => {
    const catalog = await create();
    await catalog.putAll(symbols.map((symbol) => instrument(symbol)));
    const listed = async (filter: { search?: string; limit: number; after?: string }) =>
      (await catalog.list(filter)).map(({ symbol }) => symbol);
    expect(await listed({ limit: 100 })).toEqual(['AAPL', 'AMD', 'AMZN', 'BRK.B', 'META', 'MSFT', 'NVDA']);
    expect(await listed({ limit: 2 })).toEqual(['AAPL', 'AMD']);
    expect(await listed({ limit: 2, after: 'AMD' })).toEqual(['AMZN', 'BRK.B']);
    expect(await listed({ limit: 2, after: 'AMZZ' })).toEqual(['BRK.B', 'META']);
    expect(await listed({ limit: 100, search: 'M' })).toEqual(['AMD', 'AMZN', 'META', 'MSFT']);
    expect(await listed({ limit: 2, search: 'M', after: 'AMD' })).toEqual(['AMZN', 'META']);
    expect(await listed({ limit: 100, search: 'ZZ' })).toEqual([]);
    expect(await listed({ limit: 100, after: 'NVDA' })).toEqual([]);
  });

  it('finds the few matches of a search in a long listing', async () => {
    const catalog = await create();
    const many = Array.from({ length: 1_050 }, (_, n) => `A${String(n).padStart(4, '0')}`);
    await catalog.putAll([...many, 'ZQX1', 'ZQX2', 'ZQX3'].map((symbol) => instrument(symbol)));
    const listed = async (filter: { search?: string; limit: number; after?: string }) =>
      (await catalog.list(filter)).map(({ symbol }) => symbol);
    expect(await listed({ limit: 2, search: 'QX' })).toEqual(['ZQX1', 'ZQX2']);
    expect(await listed({ limit: 2, search: 'QX', after: 'ZQX2' })).toEqual(['ZQX3']);
    expect(await listed({ limit: 3, search: '1049' })).toEqual(['A1049']);
    expect(await listed({ limit: 1_020 })).toEqual(many.slice(0, 1_020));
  });

  it('replaces an instrument put again', async () => {
    const catalog = await create();
    await catalog.putAll([instrument('AAPL')]);
    await catalog.putAll([instrument('AAPL', { name: 'Apple Inc.', active: false })]);
    expect(await catalog.get('AAPL')).toEqual(instrument('AAPL', { name: 'Apple Inc.', active: false }));
    expect(await catalog.list({ limit: 10 })).toEqual([
      instrument('AAPL', { name: 'Apple Inc.', active: false }),
    ]);
  });
});
