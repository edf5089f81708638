import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type Session, sessionOn, sessionsBetween } from '#domain/calendar/sessions';
import { readBarFile } from '#domain/market-data/bar-file';
import { type Bar, barOf, type Trade } from '#domain/market-data/bars';
import { INTERVALS } from '#domain/market-data/intervals';
import type { SymbolLedger } from '#domain/market-data/ledger';
import { deriveSymbolState } from '#domain/strat/setups';
import { foldTrades } from '#domain/strat/trade-fold';
import { parseReplayCsv } from '#scripts/lib/replay-file';
import { importHistory } from '#use-cases/import-history';
import { ingestTrades } from '#use-cases/ingest-trades';
import { inMemoryIngestPorts } from '../../support/fakes.ts';

const NOW = Date.parse('2024-11-26T20:00:00Z');
const SESSION_INTERVALS = ['1d', '1w', '1mo', '1q', '1y'] as const;
const LONG_TIMEFRAMES = new Set(['D', 'W', 'M', 'Q', 'Y']);

interface DailyRow {
  readonly date: string;
  readonly open: number;
  readonly high: number;
  readonly low: number;
  readonly close: number;
  readonly volume: number;
}

/** Deterministic daily bars of AAPL for every session from `from` to `to`: a zig-zag with ranges that vary. */
function dailyRows(from: string, to: string, shift = 0): DailyRow[] {
  return sessionsBetween(from, to).map((session: Session, index) => {
    const open = 100 + ((index * 7) % 13) + shift;
    const close = open + ((index % 5) - 2);
    return {
      date: session.date,
      open,
      high: Math.max(open, close) + 1 + (index % 3),
      low: Math.min(open, close) - 1 - (index % 4),
      close,
      volume: 1000 + index,
    };
  });
}

function csvOf(rows: readonly DailyRow[], symbol = 'AAPL'): string {
  return [
    'time,symbol,open,high,low,close,volume',
    ...rows.map(
      (row) => `${row.date},${symbol},${row.open},${row.high},${row.low},${row.close},${row.volume}`,
    ),
  ].join('\n');
}

const fileOf = (rows: readonly DailyRow[]) =>
  readBarFile(csvOf(rows), { interval: '1d', isKnownSymbol: (symbol) => symbol === 'AAPL', nowMs: NOW });

/** The trades a daily bar stands for: open at the open, then the high, the low and the close inside the session. */
function tradesOf(rows: readonly DailyRow[]): Trade[] {
  return rows.flatMap((row, index) => {
    const openMs = (sessionOn(row.date) as Session).open.getTime();
    return [row.open, row.high, row.low, row.close].map((price, k) => ({
      symbol: 'AAPL',
      price,
      size: k === 0 ? row.volume : 0,
      timestamp: openMs + k * 3_600_000,
      tradeId: `${String(index).padStart(5, '0')}:${k}`,
    }));
  });
}

/** A ledger's daily-and-longer part: the forming bars with their periods, and the completed bars kept. */
function sessionPart(ledger: SymbolLedger | undefined) {
  return SESSION_INTERVALS.map((interval) => ({
    interval,
    forming: ledger?.forming[interval],
    recent: ledger?.recent?.[interval],
  }));
}

function longState(ledger: SymbolLedger) {
  const state = deriveSymbolState(ledger, NOW, 'Information Technology');
  return {
    setups: state.setups.filter((row) => LONG_TIMEFRAMES.has(row.timeframe)),
    tfc: Object.fromEntries(
      Object.entries(state.tfc).filter(([timeframe]) => LONG_TIMEFRAMES.has(timeframe)),
    ),
  };
}

const history = dailyRows('2022-10-03', '2024-11-22');

describe('importHistory of a daily file into an empty service', () => {
  it('gives the ledger, the Strat state and the stored bars the live path builds from the same data, and fires nothing', async () => {
    const ports = inMemoryIngestPorts(NOW);
    const outcome = await importHistory(fileOf(history), ports);
    const live = foldTrades(undefined, 'AAPL', tradesOf(history));

    expect(outcome.sessions).toEqual({ added: history.length, unchanged: 0, kept: 0 });
    const imported = (await ports.ledgers.get('AAPL'))?.ledger as SymbolLedger;
    expect(sessionPart(imported)).toEqual(sessionPart(live.ledger));
    expect(longState(imported)).toEqual(longState(live.ledger));
    expect(longState(imported).setups.length).toBeGreaterThan(0);
    for (const interval of SESSION_INTERVALS) {
      const completed = live.completed.filter((bar) => bar.interval === interval).map(({ bar }) => bar);
      expect(await ports.bars.query({ symbol: 'AAPL', interval }, { limit: 10_000 })).toEqual(completed);
    }
    // Live, these bars fire in-force alerts; the import fires none, and no break.
    expect(live.inForce.length).toBeGreaterThan(0);
    expect(ports.alerts.events).toEqual([]);
    expect(ports.breaks.events).toEqual([]);
    // The state and the setup rows are stored at once.
    const stored = ports.states.states.get('AAPL');
    expect(stored?.setups).toEqual(deriveSymbolState(imported, NOW, 'Information Technology').setups);
    expect([...ports.setups.rows.values()].map((row) => row.timeframe).sort()).toEqual(
      stored?.setups.map((row) => row.timeframe).sort(),
    );
    // The latest price is the last close, at the last millisecond of its session.
    const last = history.at(-1) as DailyRow;
    expect(await ports.prices.getMany(['AAPL'])).toEqual([
      {
        symbol: 'AAPL',
        price: last.close,
        volume: 0,
        timestamp: (sessionOn(last.date) as Session).close.getTime() - 1,
        tradeId: 'history',
      },
    ]);
  });

  it('changes nothing when the same file is imported again: no bar, ledger, price or state written', async () => {
    const ports = inMemoryIngestPorts(NOW);
    await importHistory(fileOf(history), ports);
    const before = {
      ledger: structuredClone(await ports.ledgers.get('AAPL')),
      bars: structuredClone(ports.bars.series),
      state: ports.states.states.get('AAPL'),
    };
    let barWrites = 0;
    const putMany = ports.bars.putMany.bind(ports.bars);
    ports.bars.putMany = async (bars) => {
      barWrites += bars.length;
      return putMany(bars);
    };

    const again = await importHistory(fileOf(history), ports);

    expect(again).toMatchObject({
      sessions: { added: 0, unchanged: history.length, kept: 0 },
      barsWritten: 0,
      ledgersWritten: 0,
      statesChanged: 0,
    });
    expect(barWrites).toBe(0);
    expect(await ports.ledgers.get('AAPL')).toEqual(before.ledger);
    expect(ports.bars.series).toEqual(before.bars);
    expect(ports.states.states.get('AAPL')).toBe(before.state);
  });

  it('gives the same result imported in two parts, in either order', async () => {
    const whole = inMemoryIngestPorts(NOW);
    await importHistory(fileOf(history), whole);
    const split = history.findIndex((row) => row.date === '2023-12-28');
    for (const parts of [
      [history.slice(0, split), history.slice(split)],
      [history.slice(split), history.slice(0, split)],
    ]) {
      const ports = inMemoryIngestPorts(NOW);
      for (const part of parts) await importHistory(fileOf(part), ports);
      expect((await ports.ledgers.get('AAPL'))?.ledger).toEqual((await whole.ledgers.get('AAPL'))?.ledger);
      expect(ports.bars.series).toEqual(whole.bars.series);
    }
  });

  it('finishes a run that stopped after writing its bars when the import is run again', async () => {
    const clean = inMemoryIngestPorts(NOW);
    await importHistory(fileOf(history), clean);
    const ports = inMemoryIngestPorts(NOW);
    const put = ports.ledgers.put.bind(ports.ledgers);
    ports.ledgers.put = async () => {
      throw new Error('the process stopped');
    };
    await expect(importHistory(fileOf(history), ports)).rejects.toThrow('the process stopped');
    expect(await ports.ledgers.get('AAPL')).toBeUndefined();
    ports.ledgers.put = put;

    const again = await importHistory(fileOf(history), ports);

    // The last session's bars stay in the ledger only (the forming ones): it reads as new again.
    expect(again.sessions).toEqual({ added: 1, unchanged: history.length - 1, kept: 0 });
    expect((await ports.ledgers.get('AAPL'))?.ledger).toEqual((await clean.ledgers.get('AAPL'))?.ledger);
    expect(ports.bars.series).toEqual(clean.bars.series);
    expect(await ports.prices.getMany(['AAPL'])).toEqual(await clean.prices.getMany(['AAPL']));
    expect(ports.states.states.get('AAPL')?.setups).toEqual(clean.states.states.get('AAPL')?.setups);
  });
});

describe('importHistory next to live data', () => {
  /** Live trades of Monday 2024-11-25 and Tuesday 2024-11-26 (the service clock reads Tuesday 15:00 New York). */
  const liveRows = dailyRows('2024-11-25', '2024-11-25', 30);
  const liveTrades = [
    ...tradesOf(liveRows).map((trade) => ({ ...trade, tradeId: `live:${trade.tradeId}` })),
    {
      symbol: 'AAPL',
      price: 131,
      size: 5,
      timestamp: Date.parse('2024-11-26T14:30:00Z'),
      tradeId: 'live:t1',
    },
    {
      symbol: 'AAPL',
      price: 129,
      size: 7,
      timestamp: Date.parse('2024-11-26T19:00:00Z'),
      tradeId: 'live:t2',
    },
  ];

  async function liveService() {
    const ports = inMemoryIngestPorts(NOW);
    await ingestTrades(liveTrades, ports);
    return ports;
  }

  it('merges older history without touching the forming day, the latest price or the watermark, as if it had been ingested first', async () => {
    const ports = await liveService();
    const stored = await ports.ledgers.get('AAPL');
    const before = stored?.ledger as SymbolLedger;
    const price = await ports.prices.getMany(['AAPL']);
    const alerts = ports.alerts.events.length;

    const outcome = await importHistory(fileOf(history), ports);

    expect(outcome.sessions).toEqual({ added: history.length, unchanged: 0, kept: 0 });
    const after = (await ports.ledgers.get('AAPL'))?.ledger as SymbolLedger;
    expect(after.forming['1d']).toEqual(before.forming['1d']);
    expect(after.forming['15m']).toEqual(before.forming['15m']);
    expect(after.price).toEqual(before.price);
    expect(after.lastTrade).toEqual(before.lastTrade);
    // The live commit's pending writes stay with the ledger, for a redelivery of its batch.
    expect(stored?.pending).toBeDefined();
    expect((await ports.ledgers.get('AAPL'))?.pending).toEqual(stored?.pending);
    expect(await ports.prices.getMany(['AAPL'])).toEqual(price);
    // Had the history been ingested first, then the live trades:
    const reference = foldTrades(foldTrades(undefined, 'AAPL', tradesOf(history)).ledger, 'AAPL', liveTrades);
    expect(sessionPart(after)).toEqual(sessionPart(reference.ledger));
    expect(longState(after)).toEqual(longState(reference.ledger));
    // The year forming live since Monday now opens at the file's first 2024 session.
    const first2024 = history.find((row) => row.date === '2024-01-02') as DailyRow;
    expect(after.forming['1y']?.open).toBe(first2024.open);
    expect(ports.alerts.events.length).toBe(alerts);
    expect(ports.breaks.events).toEqual([]);
  });

  it("keeps the service's own session when the file has another bar for it: never counted twice", async () => {
    const ports = await liveService();
    const monday = { ...(liveRows[0] as DailyRow), high: 999, volume: 1 };

    const outcome = await importHistory(fileOf([...history.slice(-3), monday]), ports);

    expect(outcome.sessions).toEqual({ added: 3, unchanged: 0, kept: 1 });
    expect(outcome.keptSessions).toEqual([{ symbol: 'AAPL', date: '2024-11-25' }]);
    const after = (await ports.ledgers.get('AAPL'))?.ledger as SymbolLedger;
    const liveMonday = (await ports.bars.query({ symbol: 'AAPL', interval: '1d' }, { limit: 100 })).find(
      (bar) => bar.time === Date.parse('2024-11-25T00:00:00Z') / 1000,
    );
    expect(liveMonday).toMatchObject({
      high: (liveRows[0] as DailyRow).high,
      volume: (liveRows[0] as DailyRow).volume,
    });
    const tuesday = barOf(after.forming['1d'] as NonNullable<SymbolLedger['forming']['1d']>);
    expect(after.forming['1w']?.volume).toBe((liveMonday?.volume ?? 0) + tuesday.volume);
  });

  it('does a symbol again when the live path commits its ledger in the middle of the import, losing neither', async () => {
    const ports = await liveService();
    const lateTrade = {
      symbol: 'AAPL',
      price: 140,
      size: 3,
      timestamp: Date.parse('2024-11-26T19:30:00Z'),
      tradeId: 'live:t3',
    };
    const put = ports.ledgers.put.bind(ports.ledgers);
    let puts = 0;
    ports.ledgers.put = async (ledger, previousVersion, pending) => {
      puts++;
      // The first import write finds the ledger changed by a live commit since the import read it.
      if (puts === 1)
        await ingestTrades([lateTrade], {
          ...ports,
          ledgers: Object.assign(Object.create(ports.ledgers), { put }),
        });
      return put(ledger, previousVersion, pending);
    };

    const outcome = await importHistory(fileOf(history), ports);

    expect(outcome.ledgersWritten).toBe(1);
    expect(puts).toBe(2);
    const after = (await ports.ledgers.get('AAPL'))?.ledger as SymbolLedger;
    expect(after.price?.price).toBe(140);
    expect(after.forming['1d']?.high).toBe(140);
    const reference = foldTrades(foldTrades(undefined, 'AAPL', tradesOf(history)).ledger, 'AAPL', [
      ...liveTrades,
      lateTrade,
    ]);
    expect(sessionPart(after)).toEqual(sessionPart(reference.ledger));
  });

  it('refuses nothing and changes nothing when live data and an earlier import already hold every session', async () => {
    const ports = await liveService();
    await importHistory(fileOf(history), ports);
    const ledger = structuredClone(await ports.ledgers.get('AAPL'));
    const outcome = await importHistory(fileOf(history), ports);
    expect(outcome).toMatchObject({
      sessions: { added: 0, unchanged: history.length },
      barsWritten: 0,
      ledgersWritten: 0,
    });
    expect(await ports.ledgers.get('AAPL')).toEqual(ledger);
  });
});

describe('importHistory of a minute file', () => {
  it('stores every interval from 15m up as the live path builds it from the same bars, the after-hours row counted', async () => {
    const text = readFileSync('test/fixtures/aapl-minute-bars.csv', 'utf8');
    const file = readBarFile(text, {
      interval: '1m',
      isKnownSymbol: (symbol) => symbol === 'AAPL',
      nowMs: NOW,
    });
    expect(file.ignored.outsideSession).toBe(1);
    const ports = inMemoryIngestPorts(NOW);

    await importHistory(file, ports);

    const live = foldTrades(undefined, 'AAPL', parseReplayCsv(text, 'fixture').trades);
    const ledger = (await ports.ledgers.get('AAPL'))?.ledger as SymbolLedger;
    for (const interval of INTERVALS) {
      const stored = await ports.bars.query({ symbol: 'AAPL', interval }, { limit: 1_000 });
      const completed = live.completed.filter((bar) => bar.interval === interval).map(({ bar }) => bar);
      expect([interval, stored]).toEqual([interval, completed]);
      expect([interval, barOf(ledger.forming[interval] as Bar)]).toEqual([
        interval,
        barOf(live.ledger.forming[interval] as Bar),
      ]);
      expect(ledger.recent?.[interval]).toEqual(live.ledger.recent?.[interval]);
    }
    expect(ledger.price?.price).toBe(live.ledger.price?.price);
  });
});
