import { sessionsBetween } from '#domain/calendar/sessions';
import { newYorkDate } from '#domain/calendar/time-zone';
import type { CompletedBar, Trade } from '#domain/market-data/bars';
import type { Instrument } from '#domain/market-data/instruments';
import type { Interval } from '#domain/market-data/intervals';
import type { BarStore, LedgerStore, PriceStore } from '#domain/market-data/ports';
import { foldTrades } from '#domain/strat/trade-fold';
import { createHistory, type HistoryDensity, type MarketHistory } from '../simulator/model.ts';

/**
 * The local stack's first-start history: synthetic trades for about 13 months before the service
 * clock, folded by the same aggregation as live trades, so candles and setups are not empty. dynalite
 * writes a few thousand items a second, so intraday bars are kept only for recent sessions; daily and
 * longer bars for the whole span.
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
  return {
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

/** Each symbol's last history price: where the live simulation continues from. */
export function lastHistoryPrices(plan: HistoryPlan): Map<string, number> {
  const prices = new Map<string, number>();
  for (const symbol of plan.history.symbols) {
    const generator = plan.history.historyFor(symbol);
    let step = generator.next();
    while (!step.done) step = generator.next();
    if (step.value !== undefined) prices.set(symbol, step.value);
  }
  return prices;
}

function keep(plan: HistoryPlan, { interval, bar }: CompletedBar): boolean {
  const from = plan.keepFrom[interval];
  return from === undefined || bar.time >= from;
}

/** Writes one symbol's history: its kept bars and latest price, then its ledger (the "done" mark). */
export async function backfillSymbol(
  plan: HistoryPlan,
  symbol: string,
  stores: { bars: BarStore; ledgers: LedgerStore; prices: PriceStore },
): Promise<number> {
  const trades: Trade[] = [...iterate(plan.history.historyFor(symbol))];
  const fold = foldTrades(undefined, symbol, trades);
  const bars = fold.completed.filter((completed) => keep(plan, completed));
  await stores.bars.putMany(bars.map(({ interval, bar }) => ({ symbol, interval, bar })));
  if (fold.ledger.price) await stores.prices.putMany([{ symbol, ...fold.ledger.price }]);
  await stores.ledgers.put(fold.ledger, undefined);
  return bars.length + 2;
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
