import { describe, expect, it } from 'vitest';
import type { StreamItem, Trade, TradeAmendment } from '#domain/market-data/bars';
import type { Interval } from '#domain/market-data/intervals';
import { ITEMS_PER_COMMIT, ingestTrades } from '#use-cases/ingest-trades';
import { perTestTradeIds, trade } from '../../support/builders.ts';
import { inMemoryIngestPorts } from '../../support/fakes.ts';

/** Tuesday 2024-11-26, open 14:30Z; the stores' clock is its close. */
const open = Date.parse('2024-11-26T14:30:00Z');
const MINUTE = 60_000;
/** The instant `offsetMs` into the session's `index`th minute. */
const minute = (index: number, offsetMs = 0) => open + index * MINUTE + offsetMs;
/** Trade ids, counted from the start in every test. */
const ids = perTestTradeIds({ prefix: 't', width: 5 });
const cancel = (original: Trade): TradeAmendment => ({
  symbol: 'AAPL',
  amends: original.tradeId,
  timestamp: original.timestamp,
});
const correction = (original: Trade, price: number, size: number, volumeOnly = false): TradeAmendment => ({
  symbol: 'AAPL',
  amends: original.tradeId,
  timestamp: original.timestamp,
  corrected: { price, size, tradeId: `${original.tradeId}c`, ...(volumeOnly ? { volumeOnly } : {}) },
});

/** The bar of `interval` at `time` (seconds) wherever it lives: the bar store or the ledger's forming bar. */
async function barAt(stores: ReturnType<typeof inMemoryIngestPorts>, interval: Interval, time: number) {
  const [stored] = await stores.bars.query(
    { symbol: 'AAPL', interval },
    { fromTime: time, toTime: time, limit: 1 },
  );
  if (stored) return stored;
  const forming = (await stores.ledgers.get('AAPL'))?.ledger.forming[interval];
  if (forming?.time !== time) return undefined;
  const { startMs: _s, endMs: _e, ...bar } = forming;
  return bar;
}

const minuteTime = (minute: number) => (open + minute * MINUTE) / 1000;
const dayTime = Date.parse('2024-11-26T00:00:00Z') / 1000;

async function ingest(stores: ReturnType<typeof inMemoryIngestPorts>, ...batches: StreamItem[][]) {
  const outcomes = [];
  for (const batch of batches) outcomes.push(await ingestTrades(batch, stores));
  return outcomes;
}

describe('ingestTrades: cancels, errors and corrections (docs/candles.md#amendments)', () => {
  it('removes a 10x erroneous print cancelled 2.5 s after it from the 1m bar and every bar above it', async () => {
    const stores = inMemoryIngestPorts();
    const bad = trade(minute(0, 1_000), 1802, { size: 100, ids });
    await ingest(stores, [
      trade(minute(0), 180.1, { ids }),
      bad,
      trade(minute(0, 2_000), 180.2, { size: 100, ids }),
    ]);
    expect((await barAt(stores, '1m', minuteTime(0)))?.high).toBe(1802);

    const [outcome] = await ingest(stores, [cancel(bad)]);

    expect(outcome).toMatchObject({ amendmentsApplied: 1, amendmentsRefused: { unknown_trade: 0 } });
    for (const interval of ['1m', '15m', '30m', '60m', '4h'] as const) {
      expect(await barAt(stores, interval, minuteTime(0))).toEqual({
        time: minuteTime(0),
        open: 180.1,
        high: 180.2,
        low: 180.1,
        close: 180.2,
        volume: 200,
      });
    }
    expect((await barAt(stores, '1d', dayTime))?.high).toBe(180.2);
    const ledger = (await stores.ledgers.get('AAPL'))?.ledger;
    for (const interval of ['1w', '1mo', '1q', '1y'] as const)
      expect(ledger?.forming[interval]?.high).toBe(180.2);
  });

  it("replaces a corrected trade's size, 300 shares corrected to 30, in a bar completed an hour before", async () => {
    const stores = inMemoryIngestPorts();
    const big = trade(minute(0), 180, { size: 300, ids });
    await ingest(
      stores,
      [big, trade(minute(1), 181, { size: 10, ids })],
      [trade(minute(61), 182, { size: 5, ids })],
    );
    expect((await barAt(stores, '1m', minuteTime(0)))?.volume).toBe(300);

    await ingest(stores, [correction(big, 180, 30)]);

    expect(await barAt(stores, '1m', minuteTime(0))).toEqual({
      time: minuteTime(0),
      open: 180,
      high: 180,
      low: 180,
      close: 180,
      volume: 30,
    });
    expect((await barAt(stores, '60m', minuteTime(0)))?.volume).toBe(40);
    expect((await barAt(stores, '4h', minuteTime(0)))?.volume).toBe(45);
    expect((await barAt(stores, '1d', dayTime))?.volume).toBe(45);
    expect(stores.tradeLog.entries.size).toBeGreaterThan(0);
  });

  it('applies an amendment that comes in the same batch as its original, and trades after it fold on top', async () => {
    const stores = inMemoryIngestPorts();
    const bad = trade(minute(0), 1800, { ids });
    const [outcome] = await ingest(stores, [
      trade(minute(0), 180, { ids }),
      bad,
      cancel(bad),
      trade(minute(0, 10), 181, { size: 100, ids }),
    ]);
    expect(outcome).toMatchObject({ applied: 3, amendmentsApplied: 1 });
    expect(await barAt(stores, '1m', minuteTime(0))).toMatchObject({ high: 181, close: 181, volume: 200 });
  });

  it('turns a trade corrected to volume-only into volume, and removes a minute whose only trade is cancelled', async () => {
    const stores = inMemoryIngestPorts();
    const first = trade(minute(1), 180, { ids });
    const lonely = trade(minute(2), 190, { size: 7, ids });
    await ingest(
      stores,
      [trade(minute(0), 179, { ids }), first, trade(minute(1), 181, { ids })],
      [lonely],
      [trade(minute(3), 182, { ids })],
    );

    await ingest(stores, [correction(first, 200, 50, true), cancel(lonely)]);

    // The minute's first trade counts in volume only now: the bar opens at the last sale before it.
    expect(await barAt(stores, '1m', minuteTime(1))).toEqual({
      time: minuteTime(1),
      open: 179,
      high: 181,
      low: 179,
      close: 181,
      volume: 150,
    });
    expect(await barAt(stores, '1m', minuteTime(2))).toBeUndefined();
    expect(await barAt(stores, '15m', minuteTime(0))).toMatchObject({ high: 182, volume: 350 });
  });

  it('moves the latest price back when the last trade is cancelled, searching back past an emptied minute', async () => {
    const stores = inMemoryIngestPorts();
    const first = trade(minute(0), 180, { size: 10, ids });
    const second = trade(minute(0, 1), 181, { size: 5, ids });
    const last = trade(minute(3), 1900, { size: 20, ids });
    await ingest(
      stores,
      [first, second, { ...trade(minute(1), 0, { size: 3, ids }), price: 182, volumeOnly: true }],
      [last],
    );
    expect((await stores.prices.getMany(['AAPL']))[0]?.price).toBe(1900);

    await ingest(stores, [cancel(last)]);

    const price = { price: 181, volume: 5, timestamp: second.timestamp, tradeId: second.tradeId };
    expect((await stores.prices.getMany(['AAPL']))[0]).toEqual({ symbol: 'AAPL', ...price });
    expect((await stores.ledgers.get('AAPL'))?.ledger.price).toEqual(price);
  });

  it('cancels the high of the week and the month, and refuses one of an earlier session', async () => {
    const stores = inMemoryIngestPorts();
    const monday = Date.parse('2024-11-25T15:00:00Z');
    const mondayHigh = { ...trade(minute(0), 250, { ids }), timestamp: monday };
    await ingest(stores, [mondayHigh, { ...trade(minute(0), 200, { ids }), timestamp: monday + 1 }]);
    const high = trade(minute(0), 300, { ids });
    await ingest(stores, [trade(minute(0), 210, { ids }), high, trade(minute(1), 215, { ids })]);
    expect((await stores.ledgers.get('AAPL'))?.ledger.forming['1w']?.high).toBe(300);

    const [outcome] = await ingest(stores, [cancel(high), cancel(mondayHigh)]);

    expect(outcome).toMatchObject({ amendmentsApplied: 1, amendmentsRefused: { other_session: 1 } });
    const ledger = (await stores.ledgers.get('AAPL'))?.ledger;
    expect(ledger?.forming['1d']).toMatchObject({ high: 215, low: 210 });
    expect(ledger?.forming['1w']).toMatchObject({ open: 250, high: 250, low: 200, close: 215 });
    expect(ledger?.forming['1mo']?.high).toBe(250);
  });

  it('counts an amendment delivered again, or of a trade it does not know, and changes nothing twice', async () => {
    const stores = inMemoryIngestPorts();
    const bad = trade(minute(0), 1800, { size: 50, ids });
    await ingest(stores, [trade(minute(0), 180, { ids }), bad]);
    const batch = [cancel(bad)];
    await ingest(stores, batch);
    const version = (await stores.ledgers.get('AAPL'))?.version;

    const [again, unknown] = await ingest(stores, batch, [{ ...cancel(bad), amends: 'nope' }]);

    expect(again).toMatchObject({ amendmentsApplied: 0, amendmentsRefused: { duplicate: 1 } });
    expect(unknown).toMatchObject({ amendmentsApplied: 0, amendmentsRefused: { unknown_trade: 1 } });
    expect((await stores.ledgers.get('AAPL'))?.version).toBe(version);
    expect(await barAt(stores, '1m', minuteTime(0))).toMatchObject({ high: 180, volume: 100 });
  });

  it("applies a commit's log and bars again when the writer stopped after it, and the amendment once", async () => {
    const stores = inMemoryIngestPorts();
    const bad = trade(minute(0), 1800, { ids });
    await ingest(stores, [trade(minute(0), 180, { ids }), bad], [trade(minute(1), 181, { ids })]);
    const stopped = async (entries: readonly unknown[]) => {
      if (entries.length > 0) throw new Error('the writer stopped here');
    };
    const crashing = {
      ...stores,
      tradeLog: Object.assign(Object.create(stores.tradeLog) as typeof stores.tradeLog, { write: stopped }),
      bars: Object.assign(Object.create(stores.bars) as typeof stores.bars, {
        putMany: stopped,
        deleteMany: stopped,
      }),
    };
    await expect(ingestTrades([cancel(bad)], crashing)).rejects.toThrow('stopped');
    expect((await barAt(stores, '1m', minuteTime(0)))?.high).toBe(1800);

    const [again] = await ingest(stores, [cancel(bad)]);

    expect(again).toMatchObject({ recovered: 1, amendmentsApplied: 0, amendmentsRefused: { duplicate: 1 } });
    expect((await barAt(stores, '1m', minuteTime(0)))?.high).toBe(180);
    expect((await stores.ledgers.get('AAPL'))?.ledger.forming['1d']?.high).toBe(181);
  });

  it('logs only what a committed ledger applied: a writer that loses the race logs nothing', async () => {
    const stores = inMemoryIngestPorts();
    await ingest(stores, [trade(minute(0), 180, { ids })]);
    const logged = stores.tradeLog.entries.size;
    const racing = {
      ...stores,
      ledgers: Object.assign(Object.create(stores.ledgers) as typeof stores.ledgers, {
        put: async () => false,
      }),
    };
    const outcome = await ingestTrades([trade(minute(1), 181, { ids })], racing);
    expect(outcome.failedSymbols).toEqual(['AAPL']);
    expect(stores.tradeLog.entries.size).toBe(logged);
  });

  it('writes the changed state so the states channel shows the corrected bars', async () => {
    const stores = inMemoryIngestPorts();
    const monday = Date.parse('2024-11-25T15:00:00Z');
    const bad = trade(minute(1, 1), 1800, { size: 100, ids });
    await ingest(
      stores,
      [
        { ...trade(minute(0), 200, { ids }), timestamp: monday },
        { ...trade(minute(0), 170, { ids }), timestamp: monday + 1 },
      ],
      [trade(minute(0), 180, { ids }), trade(minute(1), 181, { ids }), bad],
    );
    const weekColour = () => stores.states.states.get('AAPL')?.tfc.W;
    expect(weekColour()).toBe('green');

    const [outcome] = await ingest(stores, [cancel(bad)]);

    expect(outcome?.statesChanged).toBe(1);
    // The week closes at 181 now, below its open of 200.
    expect(weekColour()).toBe('red');
  });

  it('commits a symbol with more items than one commit holds in several commits, each pending copy bounded', async () => {
    const stores = inMemoryIngestPorts();
    const many = Array.from({ length: ITEMS_PER_COMMIT + 500 }, (_, index) =>
      trade(minute(Math.floor(index / 100), index % 100), 180 + (index % 10) / 10, { size: 1, ids }),
    );

    const outcome = await ingestTrades(many, stores);

    expect(outcome).toMatchObject({ applied: many.length, failedSymbols: [] });
    const stored = await stores.ledgers.get('AAPL');
    expect(stored?.version).toBe(1);
    const pendingTrades = (stored?.pending?.log ?? []).reduce((sum, entry) => sum + entry.t.length, 0);
    expect(pendingTrades).toBe(500);
    const logged = [...stores.tradeLog.entries.values()].reduce((sum, entry) => sum + entry.trades.length, 0);
    expect(logged).toBe(many.length);
    expect((await barAt(stores, '1d', dayTime))?.volume).toBe(many.length);
  });

  it("counts an amendment stamped outside the calendar's range, or of a symbol never traded, as of an unknown trade", async () => {
    const stores = inMemoryIngestPorts();
    await ingest(stores, [trade(minute(0), 180, { ids })]);
    const [outcome] = await ingest(stores, [
      { symbol: 'AAPL', amends: 'x', timestamp: 1 },
      { symbol: 'AAPL', amends: 'y', timestamp: Date.parse('2150-01-01T15:00:00Z') },
      { symbol: 'MSFT', amends: 'z', timestamp: open },
      trade(minute(1), 181, { ids }),
    ]);
    expect(outcome).toMatchObject({ applied: 1, amendmentsRefused: { unknown_trade: 3, other_session: 0 } });
  });

  it('brings back the bar of a minute of volume-only trades when a correction gives the session a sale before it again', async () => {
    const stores = inMemoryIngestPorts();
    const sale = trade(minute(0), 180, { size: 100, ids });
    const volumeOnly = trade(minute(1), 181, { size: 50, volumeOnly: true, ids });
    await ingest(stores, [sale, volumeOnly]);
    const opened = { time: minuteTime(1), open: 180, high: 180, low: 180, close: 180, volume: 50 };
    expect(await barAt(stores, '1m', minuteTime(1))).toEqual(opened);

    // The session's only sale corrected to volume-only: no sale opens either minute, so neither has a bar.
    await ingest(stores, [correction(sale, 180, 100, true)]);
    expect(await barAt(stores, '1m', minuteTime(0))).toBeUndefined();
    expect(await barAt(stores, '1m', minuteTime(1))).toBeUndefined();

    // Corrected again to a sale: the volume-only minute after it opens at it again, as the minute still forming.
    await ingest(stores, [{ ...correction(sale, 180, 100), amends: `${sale.tradeId}c` }]);
    expect(await barAt(stores, '1m', minuteTime(0))).toMatchObject({ close: 180, volume: 100 });
    expect(await barAt(stores, '1m', minuteTime(1))).toEqual(opened);
    const ledger = (await stores.ledgers.get('AAPL'))?.ledger;
    expect(ledger?.forming['1m']).toMatchObject({ ...opened, startMs: minute(1), endMs: minute(2) });
  });

  it('opens a volume-only minute at the corrected last sale across a minute whose trades were all cancelled', async () => {
    const stores = inMemoryIngestPorts();
    const first = trade(minute(0), 100, { size: 10, ids });
    const second = trade(minute(0, 1_000), 100, { size: 10, ids });
    const cancelled = trade(minute(1), 100, { size: 10, ids });
    await ingest(stores, [
      first,
      second,
      cancelled,
      trade(minute(2), 100, { size: 5, volumeOnly: true, ids }),
      trade(minute(2, 1_000), 100, { size: 10, ids }),
    ]);

    await ingest(
      stores,
      [correction(first, 100.01, 10)],
      [cancel(cancelled)],
      [correction(second, 100, 10, true)],
    );

    expect(await barAt(stores, '1m', minuteTime(0))).toMatchObject({ open: 100.01, close: 100.01 });
    expect(await barAt(stores, '1m', minuteTime(1))).toBeUndefined();
    expect(await barAt(stores, '1m', minuteTime(2))).toEqual({
      time: minuteTime(2),
      open: 100.01,
      high: 100.01,
      low: 100,
      close: 100,
      volume: 15,
    });
  });
});

describe('ingestTrades: the latest minute held by the ledger (docs/storage.md#the-session-trade-log)', () => {
  const loggedIds = (stores: ReturnType<typeof inMemoryIngestPorts>) =>
    [...stores.tradeLog.entries.values()].map(({ minuteMs, trades }) => [
      (minuteMs - open) / MINUTE,
      trades.map(({ tradeId }) => tradeId),
    ]);

  it('writes one log item for a minute of a few trades, once the next minute comes', async () => {
    const stores = inMemoryIngestPorts();
    const first = [trade(minute(0), 180, { ids }), trade(minute(0, 20_000), 181, { ids })];
    await ingest(stores, [first[0] as Trade], [first[1] as Trade], [trade(minute(0, 40_000), 182, { ids })]);
    expect(stores.tradeLog.entries.size).toBe(0);
    expect((await stores.ledgers.get('AAPL'))?.pending?.heldLog?.t).toHaveLength(3);

    await ingest(stores, [trade(minute(1), 183, { ids })]);

    expect(loggedIds(stores)).toEqual([[0, ['t00000', 't00001', 't00002']]]);
    expect((await stores.ledgers.get('AAPL'))?.pending?.heldLog?.i).toEqual(['t00003']);
  });

  it('cancels a trade its ledger still holds, and counts a held trade delivered again as redelivered', async () => {
    const stores = inMemoryIngestPorts();
    const bad = trade(minute(0), 1800, { ids });
    await ingest(stores, [bad], [trade(minute(0, 30_000), 180, { ids })]);

    const [again, cancelled] = await ingest(stores, [bad], [cancel(bad)]);

    expect(again).toMatchObject({ applied: 0, latePrints: 0, refused: { redelivered: 1, late: 0 } });
    expect(cancelled).toMatchObject({ amendmentsApplied: 1, amendmentsRefused: { unknown_trade: 0 } });
    expect(await barAt(stores, '1m', minuteTime(0))).toMatchObject({ open: 180, high: 180, volume: 100 });
  });

  it('writes a held minute again when the writer stopped before writing it, and an amendment then finds it', async () => {
    const stores = inMemoryIngestPorts();
    const good = trade(minute(0), 180, { ids });
    const bad = trade(minute(0, 10_000), 1800, { ids });
    await ingest(stores, [good, bad]);
    const stopped = async (entries: readonly unknown[]) => {
      if (entries.length > 0) throw new Error('the writer stopped here');
    };
    const crashing = {
      ...stores,
      tradeLog: Object.assign(Object.create(stores.tradeLog) as typeof stores.tradeLog, { write: stopped }),
    };
    const nextMinute = [trade(minute(1), 181, { ids })];
    await expect(ingestTrades(nextMinute, crashing)).rejects.toThrow('stopped');
    expect(stores.tradeLog.entries.size).toBe(0);

    const [redelivered] = await ingest(stores, nextMinute);
    expect(redelivered).toMatchObject({ recovered: 1, applied: 0 });
    expect(loggedIds(stores)).toEqual([[0, ['t00000', 't00001']]]);

    const [cancelled] = await ingest(stores, [cancel(bad)]);
    expect(cancelled).toMatchObject({ amendmentsApplied: 1 });
    expect((await barAt(stores, '1m', minuteTime(0)))?.high).toBe(180);
  });
});
