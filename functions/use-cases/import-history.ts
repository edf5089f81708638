import pLimit from 'p-limit';
import { MS_PER_DAY } from '#domain/calendar/time-zone';
import type { BarFile, BarFileInterval, FileBar } from '#domain/market-data/bar-file';
import { DERIVED_INTERVALS, deriveBars, periodOfBar } from '#domain/market-data/bar-history';
import { type Bar, barOf, type FormingBar } from '#domain/market-data/bars';
import type { Interval } from '#domain/market-data/intervals';
import type { BarStore, LedgerStore, Series } from '#domain/market-data/ports';
import { ledgerKey, mergeHistoryIntoLedger } from '#domain/strat/history-ledger';
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
 *   merge of both), are written; then the ledger gets them (functions/domain/strat/history-ledger.ts), with the
 *   latest price when the import is newer than the ledger's, then the Strat state and setup rows.
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

type VersionedLedger = Awaited<ReturnType<LedgerStore['get']>>;
type LedgerMerge = ReturnType<typeof mergeHistoryIntoLedger>;
type BarWrite = Series & { bar: Bar };
type SeriesByInterval = Partial<Record<Interval, FormingBar[]>>;

/** What the service holds of a symbol around the file's sessions: stored daily bars and the ledger. */
interface Held {
  readonly storedDaily: readonly Bar[];
  readonly versioned: VersionedLedger;
  /** The ledger's forming daily bar, if any (a session the live path is building). */
  readonly formingDaily: FormingBar | undefined;
}

interface Classified {
  readonly counts: SessionCounts;
  readonly keptDates: readonly string[];
  /** The sessions the import builds on: the added ones and the unchanged ones. */
  readonly imported: readonly FileSession[];
  /** Daily bar times of the added sessions. */
  readonly added: ReadonlySet<number>;
}

async function readHeld(
  symbol: string,
  range: { fromTime: number; toTime: number },
  ports: HistoryImportPorts,
): Promise<Held> {
  const [storedDaily, versioned] = await Promise.all([
    ports.bars.query(
      { symbol, interval: '1d' },
      { ...range, limit: (range.toTime - range.fromTime) / SECONDS_PER_DAY + 1 },
    ),
    ports.ledgers.get(symbol),
  ]);
  return { storedDaily, versioned, formingDaily: versioned?.ledger.forming['1d'] };
}

/** Each file session as `added` (new), `unchanged` (equal to the service's) or `kept` (the service's differs). */
function classifySessions(sessions: readonly FileSession[], held: Held): Classified {
  const own = new Map<number, Bar>(held.storedDaily.map((bar) => [bar.time, bar]));
  if (held.formingDaily !== undefined) own.set(held.formingDaily.time, held.formingDaily);
  const counts: SessionCounts = { added: 0, unchanged: 0, kept: 0 };
  const keptDates: string[] = [];
  const imported: FileSession[] = [];
  const added = new Set<number>();
  for (const session of sessions) {
    const bar = own.get(session.daily.time);
    if (bar === undefined) {
      counts.added++;
      added.add(session.daily.time);
      imported.push(session);
    } else if (sameBar(bar, session.daily)) {
      counts.unchanged++;
      imported.push(session);
    } else {
      counts.kept++;
      keptDates.push(isoDate(session.daily.time));
    }
  }
  return { counts, keptDates, imported, added };
}

/** Every daily bar of the periods read, in time order: the service's and the file's imported sessions. */
function periodsDaily(
  held: Held,
  range: { fromTime: number; toTime: number },
  imported: readonly FileSession[],
): Bar[] {
  const daily = new Map<number, Bar>();
  for (const bar of held.storedDaily) daily.set(bar.time, bar);
  const forming = held.formingDaily;
  if (forming !== undefined && forming.time >= range.fromTime && forming.time <= range.toTime)
    daily.set(forming.time, forming);
  for (const session of imported) daily.set(session.daily.time, session.daily);
  return [...daily.values()].sort((a, b) => a.time - b.time);
}

/**
 * The bars of every interval the imported sessions make (the minutes and the intraday intervals of a 1m
 * file, the daily bars, and each longer period holding one of them recomputed from `allDaily`), and per
 * interval the bar times holding an added session: what the bars table must get.
 */
function deriveSeries(
  base: BarFileInterval,
  { imported, added }: Classified,
  allDaily: readonly Bar[],
): { series: SeriesByInterval; toWrite: Map<Interval, Set<number>> } {
  const series: SeriesByInterval = { '1d': imported.map(({ daily }) => daily) };
  const toWrite = new Map<Interval, Set<number>>([['1d', new Set(added)]]);
  const holdsAdded = (bars: readonly Bar[]) =>
    new Set(bars.filter((bar) => added.has(dayTime(bar.time))).map(({ time }) => time));
  if (base === '1m') {
    const minutes = imported.flatMap(({ minutes }) => minutes);
    series['1m'] = minutes.map((bar) => ({
      ...barOf(bar),
      startMs: bar.time * 1000,
      endMs: bar.time * 1000 + 60_000,
    }));
    toWrite.set('1m', holdsAdded(minutes));
    for (const interval of DERIVED_INTERVALS['1m']) {
      if (interval === '1d' || LONG_INTERVALS.includes(interval)) continue;
      const bars = deriveBars(interval, '1m', minutes);
      series[interval] = bars;
      toWrite.set(interval, holdsAdded(bars));
    }
  }
  for (const interval of LONG_INTERVALS) {
    const periodsOf = (times: Iterable<number>) =>
      new Set([...times].map((time) => periodOfBar(interval, '1d', time).time));
    const affected = periodsOf(imported.map(({ daily }) => daily.time));
    series[interval] = deriveBars(interval, '1d', allDaily).filter((bar) => affected.has(bar.time));
    toWrite.set(interval, periodsOf(added));
  }
  return { series, toWrite };
}

/** The ledger with the series merged in, closing at the file's latest bar. */
function mergeLedger(
  symbol: string,
  base: BarFileInterval,
  imported: readonly FileSession[],
  series: SeriesByInterval,
  versioned: VersionedLedger,
): LedgerMerge {
  const latest = imported.at(-1) as FileSession;
  const latestBar = base === '1d' ? latest.daily : (latest.minutes.at(-1) as FileBar);
  return mergeHistoryIntoLedger(versioned?.ledger, symbol, series, {
    endMs: base === '1d' ? latest.daily.endMs : latestBar.time * 1000 + 60_000,
    close: latestBar.close,
  });
}

/**
 * The bar writes, in three stages written in turn: the longer and intraday intervals, then the minutes,
 * then each session's `1d` bar last (so a stored `1d` bar means all of its session's bars are stored). A bar
 * the merged ledger still forms is not written, nor one `keepBar` refuses; bars the merge displaced from the
 * ledger are.
 */
function planBarWrites(
  symbol: string,
  { series, toWrite }: ReturnType<typeof deriveSeries>,
  merge: LedgerMerge,
  keepBar: (interval: Interval, time: number) => boolean,
): BarWrite[][] {
  const stages: BarWrite[][] = [[], [], []];
  const planned = new Set<string>();
  const add = (interval: Interval, bar: Bar) => {
    const key = `${interval}#${bar.time}`;
    if (planned.has(key) || merge.ledger.forming[interval]?.time === bar.time || !keepBar(interval, bar.time))
      return;
    planned.add(key);
    const stage = interval === '1d' ? 2 : interval === '1m' ? 1 : 0;
    (stages[stage] as BarWrite[]).push({ symbol, interval, bar: barOf(bar) });
  };
  for (const [interval, bars] of Object.entries(series) as [Interval, FormingBar[]][]) {
    const times = toWrite.get(interval);
    for (const bar of bars) if (times?.has(bar.time)) add(interval, bar);
  }
  for (const { interval, bar } of merge.displaced) add(interval, bar);
  return stages;
}

/**
 * Writes the bars, then the ledger (if it changed; undefined when another writer changed it meanwhile) and its
 * latest price with it, then the Strat state, which is brought in line even when the ledger already was (a
 * run stopped after its ledger commit), and skipped when the stored one is already this.
 */
async function commit(
  stages: readonly BarWrite[][],
  merge: LedgerMerge,
  versioned: VersionedLedger,
  ports: HistoryImportPorts,
): Promise<{ barsWritten: number; ledgerWritten: boolean; statesChanged: number } | undefined> {
  for (const stage of stages) if (stage.length > 0) await ports.bars.putMany(stage);
  const barsWritten = stages.reduce((sum, stage) => sum + stage.length, 0);

  let version = versioned?.version ?? -1;
  const ledgerWritten = ledgerKey(versioned?.ledger) !== ledgerKey(merge.ledger);
  if (ledgerWritten) {
    // The ledger's pending writes (a live commit's, functions/use-cases/ingest-trades.ts) are kept: a
    // redelivery of the batch that committed them must still find them.
    if (!(await ports.ledgers.put(merge.ledger, versioned?.version, versioned?.pending))) return undefined;
    version++;
  }
  const [states] = await Promise.all([
    syncStates([{ ledger: merge.ledger, version }], ports.nowMs(), ports.sectorOf, ports),
    ports.ledgers.settled(),
  ]);
  return { barsWritten, ledgerWritten, statesChanged: states.length };
}

/** One symbol's import: classify its sessions, derive the series, plan the writes, commit; see the module comment. */
async function importSymbol(
  symbol: string,
  base: BarFileInterval,
  rows: readonly FileBar[],
  ports: HistoryImportPorts,
  keepBar: (interval: Interval, time: number) => boolean,
): Promise<SymbolResult> {
  const sessions = sessionsOf(base, rows);
  const range = dailyRange(sessions);
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const held = await readHeld(symbol, range, ports);
    const classified = classifySessions(sessions, held);
    const result = {
      symbol,
      rows: rows.length,
      sessions: classified.counts,
      keptDates: classified.keptDates,
    };
    if (classified.imported.length === 0) {
      return { ...result, barsWritten: 0, ledgerWritten: false, statesChanged: 0 };
    }
    const derived = deriveSeries(base, classified, periodsDaily(held, range, classified.imported));
    const merge = mergeLedger(symbol, base, classified.imported, derived.series, held.versioned);
    const stages = planBarWrites(symbol, derived, merge, keepBar);
    const committed = await commit(stages, merge, held.versioned, ports);
    if (committed !== undefined) return { ...result, ...committed };
  }
  throw new Error(`the ledger of ${symbol} kept changing during the import (${MAX_ATTEMPTS} attempts)`);
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
