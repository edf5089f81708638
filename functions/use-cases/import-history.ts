import pLimit from 'p-limit';
import { MS_PER_DAY } from '#domain/calendar/time-zone';
import type { BarFile, BarFileInterval, FileBar } from '#domain/market-data/bar-file';
import { DERIVED_INTERVALS, deriveBars, periodOfBar } from '#domain/market-data/bar-history';
import { type Bar, barOf, type FormingBar } from '#domain/market-data/bars';
import type { Interval } from '#domain/market-data/intervals';
import type { BarStore, LedgerStore, PriceStore, Series } from '#domain/market-data/ports';
import { HISTORY_TRADE_ID, ledgerKey, mergeHistoryIntoLedger } from '#domain/strat/history-ledger';
import { type StateSyncPorts, syncStates } from './sync-states.ts';

/**
 * Imports a checked bar file (functions/domain/market-data/bar-file.ts) into the stores the live path keeps,
 * writing bars directly, never through the trade stream (docs/backfill.md). For each symbol, one session at a
 * time is the unit:
 *
 * - A session the service already holds (a `1d` bar in the bars table or the ledger) is never changed: a file
 *   session equal to it is `unchanged` (a repeated import), a different one is `kept` (the service's own bar
 *   stays; counted and reported). So an import never counts a session twice, and repeating one writes nothing.
 * - The other sessions are `added`: their bars, and every longer period holding one of them recomputed from all
 *   the daily bars of that period (the stored ones and the added ones: a week half live, half imported is the
 *   merge of both), are written; then the ledger gets them (functions/domain/strat/history-ledger.ts), then the
 *   latest price (only if the import is newer than the ledger's), then the Strat state and setup rows.
 * - No in-force alert or simultaneous break is appended (docs/backfill.md#why-no-alerts-fire).
 *
 * Faults: bars are absolute values, written before the ledger, and each session's `1d` bar last of its bars,
 * so a session whose `1d` bar is stored has all its bars stored. A run that stops before its ledger commit is
 * completed by running the import again: its sessions read as `unchanged`, and the ledger is rebuilt from them
 * all the same. A ledger changed meanwhile by the live path (its version moved) is read again and the symbol
 * done again.
 */
export interface HistoryImportPorts extends StateSyncPorts {
  readonly ledgers: LedgerStore;
  readonly bars: BarStore;
  readonly prices: PriceStore;
  readonly sectorOf: (symbol: string) => string;
  /** The service clock, Unix ms ("now" of the derived states). */
  readonly nowMs: () => number;
}

export interface HistoryImportOptions {
  /** Symbols imported at once (each writes its bars in parallel batches). Default 4. */
  readonly concurrency?: number;
  /** Which bars go to the bars table (default: all); the ledger gets every bar regardless. */
  readonly keepBar?: (interval: Interval, time: number) => boolean;
  /** Called after each symbol. */
  readonly onSymbol?: (progress: SymbolImport) => void;
}

export interface SessionCounts {
  /** Sessions new to the service: imported. */
  added: number;
  /** Sessions equal to what the service holds: nothing to do. */
  unchanged: number;
  /** Sessions the service holds with other values: the service's bar is kept, the file's ignored. */
  kept: number;
}

export interface SymbolImport {
  readonly symbol: string;
  readonly rows: number;
  readonly sessions: SessionCounts;
  readonly barsWritten: number;
  readonly ledgerWritten: boolean;
}

export interface HistoryImportOutcome {
  readonly symbols: number;
  readonly rows: number;
  readonly sessions: SessionCounts;
  readonly barsWritten: number;
  readonly ledgersWritten: number;
  readonly statesChanged: number;
  /** Symbol and session of each kept session (the file's bar differs from the service's). */
  readonly keptSessions: readonly { readonly symbol: string; readonly date: string }[];
}

/** A ledger changed by another writer between read and write is done again, at most this many times. */
const MAX_ATTEMPTS = 5;
const SECONDS_PER_DAY = 86_400;
const LONG_INTERVALS: readonly Interval[] = ['1w', '1mo', '1q', '1y'];

/** One session of a symbol in the file: its daily bar (given or derived) and, for a 1m file, its minutes. */
interface FileSession {
  readonly daily: FormingBar;
  readonly minutes: readonly FileBar[];
}

function sessionsOf(base: BarFileInterval, rows: readonly FileBar[]): FileSession[] {
  if (base === '1d') {
    return rows.map((row) => {
      const period = periodOfBar('1d', '1d', row.time);
      return { daily: { ...barOf(row), startMs: period.startMs, endMs: period.endMs }, minutes: [] };
    });
  }
  const sessions: FileSession[] = [];
  let start = 0;
  for (let index = 1; index <= rows.length; index++) {
    const first = rows[start] as FileBar;
    const row = rows[index];
    if (
      row !== undefined &&
      Math.floor(row.time / SECONDS_PER_DAY) === Math.floor(first.time / SECONDS_PER_DAY)
    )
      continue;
    const minutes = rows.slice(start, index);
    sessions.push({ daily: deriveBars('1d', '1m', minutes)[0] as FormingBar, minutes });
    start = index;
  }
  return sessions;
}

function sameBar(a: Bar, b: Bar): boolean {
  return (
    a.time === b.time &&
    a.open === b.open &&
    a.high === b.high &&
    a.low === b.low &&
    a.close === b.close &&
    a.volume === b.volume
  );
}

function isoDate(time: number): string {
  return new Date(time * 1000).toISOString().slice(0, 10);
}

/** The daily bar times a symbol's import reads: every longer period holding one of the file's sessions. */
function dailyRange(sessions: readonly FileSession[]): { fromTime: number; toTime: number } {
  const first = (sessions[0] as FileSession).daily.time;
  const last = (sessions.at(-1) as FileSession).daily.time;
  let fromTime = first;
  let toEndMs = (sessions.at(-1) as FileSession).daily.endMs;
  for (const interval of LONG_INTERVALS) {
    fromTime = Math.min(fromTime, periodOfBar(interval, '1d', first).time);
    toEndMs = Math.max(toEndMs, periodOfBar(interval, '1d', last).endMs);
  }
  return { fromTime, toTime: Math.floor(toEndMs / MS_PER_DAY) * SECONDS_PER_DAY };
}

interface SymbolResult extends SymbolImport {
  readonly keptDates: readonly string[];
  readonly statesChanged: number;
}

async function importSymbol(
  symbol: string,
  base: BarFileInterval,
  rows: readonly FileBar[],
  ports: HistoryImportPorts,
  keepBar: (interval: Interval, time: number) => boolean,
): Promise<SymbolResult> {
  const sessions = sessionsOf(base, rows);
  const range = dailyRange(sessions);
  for (let attempt = 1; ; attempt++) {
    const [storedDaily, versioned] = await Promise.all([
      ports.bars.query(
        { symbol, interval: '1d' },
        { ...range, limit: (range.toTime - range.fromTime) / SECONDS_PER_DAY + 1 },
      ),
      ports.ledgers.get(symbol),
    ]);
    const held = new Map<number, Bar>(storedDaily.map((bar) => [bar.time, bar]));
    const formingDaily = versioned?.ledger.forming['1d'];
    if (formingDaily !== undefined) held.set(formingDaily.time, formingDaily);

    const counts: SessionCounts = { added: 0, unchanged: 0, kept: 0 };
    const keptDates: string[] = [];
    const imported: FileSession[] = [];
    const added = new Set<number>();
    for (const session of sessions) {
      const own = held.get(session.daily.time);
      if (own === undefined) {
        counts.added++;
        added.add(session.daily.time);
        imported.push(session);
      } else if (sameBar(own, session.daily)) {
        counts.unchanged++;
        imported.push(session);
      } else {
        counts.kept++;
        keptDates.push(isoDate(session.daily.time));
      }
    }
    const result = { symbol, rows: rows.length, sessions: counts, keptDates };
    if (imported.length === 0) return { ...result, barsWritten: 0, ledgerWritten: false, statesChanged: 0 };

    // Every daily bar of the periods read: the service's and the file's imported sessions.
    const daily = new Map<number, Bar>();
    for (const bar of storedDaily) daily.set(bar.time, bar);
    if (
      formingDaily !== undefined &&
      formingDaily.time >= range.fromTime &&
      formingDaily.time <= range.toTime
    )
      daily.set(formingDaily.time, formingDaily);
    for (const session of imported) daily.set(session.daily.time, session.daily);
    const allDaily = [...daily.values()].sort((a, b) => a.time - b.time);

    const series: Partial<Record<Interval, FormingBar[]>> = { '1d': imported.map(({ daily }) => daily) };
    /** Per interval, the bar times holding an added session: what the bars table must get. */
    const toWrite = new Map<Interval, Set<number>>([['1d', added]]);
    if (base === '1m') {
      const minutes = imported.flatMap(({ minutes }) => minutes);
      series['1m'] = minutes.map((bar) => ({
        ...barOf(bar),
        startMs: bar.time * 1000,
        endMs: bar.time * 1000 + 60_000,
      }));
      toWrite.set(
        '1m',
        new Set(minutes.filter((bar) => added.has(dayTime(bar.time))).map(({ time }) => time)),
      );
      for (const interval of DERIVED_INTERVALS['1m'].filter(
        (interval) => !LONG_INTERVALS.includes(interval),
      )) {
        if (interval === '1d') continue;
        const bars = deriveBars(interval, '1m', minutes);
        series[interval] = bars;
        toWrite.set(
          interval,
          new Set(bars.filter((bar) => added.has(dayTime(bar.time))).map(({ time }) => time)),
        );
      }
    }
    for (const interval of LONG_INTERVALS) {
      const periodsOf = (times: Iterable<number>) =>
        new Set([...times].map((time) => periodOfBar(interval, '1d', time).time));
      const affected = periodsOf(imported.map(({ daily }) => daily.time));
      series[interval] = deriveBars(interval, '1d', allDaily).filter((bar) => affected.has(bar.time));
      toWrite.set(interval, periodsOf(added));
    }

    const latest = imported.at(-1) as FileSession;
    const latestBar = base === '1d' ? latest.daily : (latest.minutes.at(-1) as FileBar);
    const merge = mergeHistoryIntoLedger(versioned?.ledger, symbol, series, {
      endMs: base === '1d' ? latest.daily.endMs : latestBar.time * 1000 + 60_000,
      close: latestBar.close,
    });

    const writes: (Series & { bar: Bar })[][] = [[], [], []];
    const written = new Set<string>();
    const add = (interval: Interval, bar: Bar) => {
      const key = `${interval}#${bar.time}`;
      if (
        written.has(key) ||
        merge.ledger.forming[interval]?.time === bar.time ||
        !keepBar(interval, bar.time)
      )
        return;
      written.add(key);
      const stage = interval === '1d' ? 2 : interval === '1m' ? 1 : 0;
      (writes[stage] as (Series & { bar: Bar })[]).push({ symbol, interval, bar: barOf(bar) });
    };
    for (const [interval, bars] of Object.entries(series) as [Interval, FormingBar[]][]) {
      const times = toWrite.get(interval);
      for (const bar of bars) if (times?.has(bar.time)) add(interval, bar);
    }
    for (const { interval, bar } of merge.displaced) add(interval, bar);
    for (const stage of writes) if (stage.length > 0) await ports.bars.putMany(stage);
    const barsWritten = writes.reduce((sum, stage) => sum + stage.length, 0);

    let version = versioned?.version ?? -1;
    const ledgerWritten = ledgerKey(versioned?.ledger) !== ledgerKey(merge.ledger);
    if (ledgerWritten) {
      // The ledger's pending writes (a live commit's, functions/use-cases/ingest-trades.ts) are kept: a
      // redelivery of the batch that committed them must still find them.
      if (!(await ports.ledgers.put(merge.ledger, versioned?.version, versioned?.pending))) {
        if (attempt === MAX_ATTEMPTS) {
          throw new Error(
            `the ledger of ${symbol} kept changing during the import (${MAX_ATTEMPTS} attempts)`,
          );
        }
        continue;
      }
      version++;
    }
    // The price and the state are brought in line even when the ledger was already (a run stopped after its
    // ledger commit); both writes are skipped when the stored values are already these.
    const price = merge.ledger.price;
    if (price?.tradeId === HISTORY_TRADE_ID) {
      const [stored] = await ports.prices.getMany([symbol]);
      if (stored === undefined || stored.timestamp < price.timestamp) {
        await ports.prices.putMany([{ symbol, ...price }]);
      }
    }
    const states = await syncStates(
      [{ ledger: merge.ledger, version }],
      ports.nowMs(),
      ports.sectorOf,
      ports,
    );
    return { ...result, barsWritten, ledgerWritten, statesChanged: states.length };
  }
}

function dayTime(time: number): number {
  return Math.floor(time / SECONDS_PER_DAY) * SECONDS_PER_DAY;
}

/** Imports every symbol of a checked bar file; see the module comment. */
export async function importHistory(
  file: BarFile,
  ports: HistoryImportPorts,
  options: HistoryImportOptions = {},
): Promise<HistoryImportOutcome> {
  const limit = pLimit(options.concurrency ?? 4);
  const keepBar = options.keepBar ?? (() => true);
  const results = await Promise.all(
    [...file.bars].map(([symbol, rows]) =>
      limit(async () => {
        const result = await importSymbol(symbol, file.interval, rows, ports, keepBar);
        options.onSymbol?.(result);
        return result;
      }),
    ),
  );
  const sessions: SessionCounts = { added: 0, unchanged: 0, kept: 0 };
  for (const result of results) {
    sessions.added += result.sessions.added;
    sessions.unchanged += result.sessions.unchanged;
    sessions.kept += result.sessions.kept;
  }
  return {
    symbols: results.length,
    rows: results.reduce((sum, result) => sum + result.rows, 0),
    sessions,
    barsWritten: results.reduce((sum, result) => sum + result.barsWritten, 0),
    ledgersWritten: results.filter((result) => result.ledgerWritten).length,
    statesChanged: results.reduce((sum, result) => sum + result.statesChanged, 0),
    keptSessions: results.flatMap(({ symbol, keptDates }) => keptDates.map((date) => ({ symbol, date }))),
  };
}
