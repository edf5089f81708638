import { sessionsBetween } from '#domain/calendar/sessions';
import { newYorkDate } from '#domain/calendar/time-zone';
import type { Bar, Trade } from '#domain/market-data/bars';
import type { Instrument } from '#domain/market-data/instruments';
import type { Interval } from '#domain/market-data/intervals';
import { foldTrades } from '#domain/strat/trade-fold';
import { type HistoryTarget, importBarText } from '../lib/history-import.ts';
import { createHistory, type HistoryDensity, type MarketHistory } from '../simulator/model.ts';

/**
 * The local stack's first-start history: synthetic trades for about 13 months before the service clock,
 * folded into bars by the same aggregation as live trades, then imported by the one import every history goes
 * through (`npm run backfill`'s, scripts/lib/history-import.ts; docs/backfill.md): daily rows for the
 * sessions before the last 15, minute rows for those 15, so candles and setups are not empty and the Strat
 * state is built as for any import (no alert fires for the past). dynalite writes about a thousand items a
 * second, so intraday bars are kept in the bars table only for recent sessions; daily and longer bars for the
 * whole span.
 */
const HISTORY_DAYS = 400;
const DENSE_SESSIONS = 5;
const MEDIUM_SESSIONS = 15;
/** Intraday bars older than this many sessions are not written (see the module comment). */
const INTRADAY_HORIZON_SESSIONS: Partial<Record<Interval, number>> = {
  '1m': 1,
  '15m': DENSE_SESSIONS,
  '30m': DENSE_SESSIONS,
  '60m': MEDIUM_SESSIONS,
  '4h': MEDIUM_SESSIONS,
};
const DAY_MS = 86_400_000;

export interface HistoryPlan {
  readonly history: MarketHistory;
  /** How many trades a past session gets: dense for the last 5, medium for the 10 before, sparse before. */
  readonly densityFor: (sessionDate: string) => HistoryDensity;
  /** Bar time (Unix seconds) from which each intraday interval's history is kept. */
  readonly keepFrom: Partial<Record<Interval, number>>;
  /** The open (Unix seconds) of the first session imported as minute rows: the last 15 sessions. */
  readonly minutesFrom: number;
}

export function planHistory(options: {
  seed: number;
  instruments: readonly Instrument[];
  nowMs: number;
}): HistoryPlan {
  const fromMs = options.nowMs - HISTORY_DAYS * DAY_MS;
  const sessions = sessionsBetween(
    newYorkDate(new Date(fromMs)),
    newYorkDate(new Date(options.nowMs)),
  ).filter((session) => session.open.getTime() < options.nowMs);
  const recent = sessions.map((session) => session.date);
  const denseFrom = recent.at(-DENSE_SESSIONS) ?? '';
  const mediumFrom = recent.at(-MEDIUM_SESSIONS) ?? '';
  const densityFor = (date: string): HistoryDensity =>
    date >= denseFrom ? 'dense' : date >= mediumFrom ? 'medium' : 'sparse';
  const keepFrom: Partial<Record<Interval, number>> = {};
  for (const [interval, count] of Object.entries(INTRADAY_HORIZON_SESSIONS)) {
    const session = sessions.at(-count);
    keepFrom[interval as Interval] = session ? session.open.getTime() / 1000 : Number.POSITIVE_INFINITY;
  }
  const minutesSession = sessions.at(-MEDIUM_SESSIONS) ?? sessions[0];
  return {
    minutesFrom: minutesSession ? minutesSession.open.getTime() / 1000 : Number.POSITIVE_INFINITY,
    densityFor,
    history: createHistory({
      seed: options.seed,
      symbols: options.instruments,
      fromMs,
      toMs: options.nowMs,
      densityFor,
    }),
    keepFrom,
  };
}

/** Lets timers and signal handlers run between two pieces of long synchronous work (Ctrl-C answers at once). */
export const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Each symbol's last history price: where the live simulation continues from. Yields between symbols and
 * stops early (an incomplete map) once `signal` is aborted.
 */
export async function lastHistoryPrices(
  plan: HistoryPlan,
  signal?: AbortSignal,
): Promise<Map<string, number>> {
  const prices = new Map<string, number>();
  for (const symbol of plan.history.symbols) {
    await yieldToEventLoop();
    if (signal?.aborted) break;
    const generator = plan.history.historyFor(symbol);
    let step = generator.next();
    while (!step.done) step = generator.next();
    if (step.value !== undefined) prices.set(symbol, step.value);
  }
  return prices;
}

function isoDate(time: number): string {
  return new Date(time * 1000).toISOString().slice(0, 10);
}

/**
 * The bar files of some symbols' history (docs/backfill.md#file-format): each symbol's trades folded as live
 * trades are, then its daily bars before `minutesFrom` as `1d` rows and its minute bars from then on as `1m`
 * rows (a minute still running at `nowMs` left out: only ended periods are history).
 */
export function historyBarFiles(
  plan: HistoryPlan,
  symbols: readonly string[],
  nowMs: number,
): { daily: string; minutes: string } {
  const daily = ['time,symbol,open,high,low,close,volume'];
  const minutes = ['time,symbol,open,high,low,close,volume'];
  const row = (time: string | number, symbol: string, bar: Bar) =>
    `${time},${symbol},${bar.open},${bar.high},${bar.low},${bar.close},${bar.volume}`;
  for (const symbol of symbols) {
    const fold = foldTrades(undefined, symbol, [...iterate(plan.history.historyFor(symbol))]);
    const last = (interval: Interval) => {
      const forming = fold.ledger.forming[interval];
      return forming !== undefined && forming.endMs <= nowMs ? [forming] : [];
    };
    const bars = (interval: Interval) => [
      ...fold.completed.filter((completed) => completed.interval === interval).map(({ bar }) => bar),
      ...last(interval),
    ];
    const minutesDay = Math.floor(plan.minutesFrom / 86_400) * 86_400;
    for (const bar of bars('1d')) if (bar.time < minutesDay) daily.push(row(isoDate(bar.time), symbol, bar));
    for (const bar of bars('1m')) if (bar.time >= plan.minutesFrom) minutes.push(row(bar.time, symbol, bar));
  }
  return { daily: `${daily.join('\n')}\n`, minutes: `${minutes.join('\n')}\n` };
}

/**
 * Imports the history of some symbols into the local stack's tables: their daily file, then their minute
 * file. Returns how many items were written.
 */
export async function backfillSymbols(
  plan: HistoryPlan,
  symbols: readonly string[],
  target: HistoryTarget,
  nowMs: () => number,
  signal?: AbortSignal,
): Promise<number> {
  // One symbol's bars at a time, yielding between them: folding a symbol's 13 months is long synchronous work.
  const perSymbol: { daily: string; minutes: string }[] = [];
  for (const symbol of symbols) {
    await yieldToEventLoop();
    if (signal?.aborted) return 0;
    perSymbol.push(historyBarFiles(plan, [symbol], nowMs()));
  }
  const join = (part: 'daily' | 'minutes') =>
    perSymbol
      .map((files, index) => (index === 0 ? files[part] : files[part].replace(/^[^\n]*\n/, '')))
      .join('');
  const files = { daily: join('daily'), minutes: join('minutes') };
  const keepBar = (interval: Interval, time: number) =>
    time >= (plan.keepFrom[interval] ?? Number.NEGATIVE_INFINITY);
  let items = 0;
  for (const [text, interval] of [
    [files.daily, '1d'],
    [files.minutes, '1m'],
  ] as const) {
    if (signal?.aborted) break;
    const { outcome } = await importBarText(text, interval, target, { nowMs, keepBar });
    items += outcome.barsWritten + outcome.ledgersWritten * 2 + outcome.statesChanged;
  }
  return items;
}

function* iterate(generator: Generator<Trade, unknown, undefined>): Generator<Trade> {
  let step = generator.next();
  while (!step.done) {
    yield step.value;
    step = generator.next();
  }
}

/** Futures and index ETFs first (what a demo looks at), then the rest in symbol order. */
export function backfillOrder(instruments: readonly Instrument[]): string[] {
  const rank = (instrument: Instrument) =>
    instrument.market === 'futures' ? 0 : instrument.type === 'ETF' ? 1 : 2;
  return [...instruments]
    .sort((a, b) => rank(a) - rank(b) || (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0))
    .map(({ symbol }) => symbol);
}

function duration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/**
 * The backfill's progress line: symbols done of all, the share, the items written, the time so far and about
 * how long is left at the pace so far.
 */
export function backfillProgress(progress: {
  readonly done: number;
  readonly total: number;
  readonly items: number;
  readonly elapsedMs: number;
}): string {
  const { done, total, items, elapsedMs } = progress;
  const share = total === 0 ? 100 : Math.floor((done / total) * 100);
  const left =
    done === 0
      ? ''
      : done === total
        ? ', done'
        : `, about ${duration((elapsedMs / done) * (total - done))} left`;
  return `History: ${done}/${total} symbols (${share}%), ${items.toLocaleString('en-US')} items, ${duration(elapsedMs)}${left}`;
}
