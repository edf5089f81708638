/**
 * A symbol's ledger with imported history merged in (docs/backfill.md#the-strat-state-after-an-import): per
 * interval, the imported bars join the ledger's own (its forming bar and `recent`, C1 .. C11), an imported bar
 * replacing the ledger's bar of the same period (the import recomputes such a period from every session it
 * holds, the ledger's included). The newest bar of each interval is the forming one, the 11 before it
 * `recent`: exactly what the live fold keeps (functions/domain/market-data/candle-fold.ts), so `/states`,
 * `/setups/current` and the TFC read the history at once.
 *
 * Nothing fires: no in-force alert or break is made for the past (docs/backfill.md#why-no-alerts-fire). The
 * `fired` flags of a forming period that an import replaced are cleared; the in-force detection treats a
 * forming bar that already took C1 out as fired (functions/domain/strat/in-force.ts `arm`), so no alert fires
 * late for an imported period either.
 *
 * The latest price and the watermark move only when the import is newer than what the ledger holds: then the
 * price is the newest imported close, stamped at the last millisecond of its period, with volume 0 (a bar file
 * has no last trade size).
 */
import { type Bar, barOf, type FormingBar, type TradeMark } from '#domain/market-data/bars';
import { INTERVALS, type Interval } from '#domain/market-data/intervals';
import type { SymbolLedger } from '#domain/market-data/ledger';
import type { InForceFlags } from './directions.ts';
import { RECENT_BARS } from './in-force.ts';
import { INTERVAL_TIMEFRAME } from './timeframes.ts';

/** The trade id of the watermark an import sets: imported bars have no trades. */
export const HISTORY_TRADE_ID = 'history';

export interface HistoryMerge {
  readonly ledger: SymbolLedger;
  /**
   * The ledger's forming bars that a newer imported bar completed: they belong in the bars table now, as the
   * live path writes a bar the next period completes.
   */
  readonly displaced: { readonly interval: Interval; readonly bar: Bar }[];
}

/** The newest imported bar of the file's interval: its period's end (Unix ms, excluded) and its close. */
export interface LatestImported {
  readonly endMs: number;
  readonly close: number;
}

/**
 * Merges imported bars (per interval, in time order, each with its period's bounds) into a symbol's ledger
 * (undefined: none yet). Pure: the input ledger is not modified.
 */
export function mergeHistoryIntoLedger(
  ledger: SymbolLedger | undefined,
  symbol: string,
  series: Partial<Record<Interval, readonly FormingBar[]>>,
  latest: LatestImported | undefined,
): HistoryMerge {
  const forming: Partial<Record<Interval, FormingBar>> = {};
  const recent: Partial<Record<Interval, Bar[]>> = {};
  const fired: Partial<Record<Interval, InForceFlags>> = {};
  const displaced: { interval: Interval; bar: Bar }[] = [];
  for (const interval of INTERVALS) {
    const imported = series[interval];
    const ownForming = ledger?.forming[interval];
    const ownRecent = ledger?.recent?.[interval];
    const ownFired = ledger?.fired?.[interval];
    if (imported === undefined || imported.length === 0) {
      if (ownForming !== undefined) forming[interval] = ownForming;
      if (ownRecent !== undefined) recent[interval] = ownRecent;
      if (ownFired !== undefined) fired[interval] = ownFired;
      continue;
    }
    const byTime = new Map<number, Bar | FormingBar>();
    for (const bar of ownRecent ?? []) byTime.set(bar.time, bar);
    if (ownForming !== undefined) byTime.set(ownForming.time, ownForming);
    for (const bar of imported) byTime.set(bar.time, bar);
    const times = [...byTime.keys()].sort((a, b) => a - b);
    const newestTime = times.at(-1) as number;
    const newest = byTime.get(newestTime) as FormingBar;
    forming[interval] = { ...newest };
    if (ownForming !== undefined && ownForming.time !== newestTime) {
      displaced.push({ interval, bar: barOf(byTime.get(ownForming.time) as Bar) });
    } else if (ownFired !== undefined) {
      fired[interval] = ownFired;
    }
    if (INTERVAL_TIMEFRAME[interval] !== undefined) {
      const completed = times.slice(-RECENT_BARS - 1, -1).map((time) => barOf(byTime.get(time) as Bar));
      if (completed.length > 0) recent[interval] = completed;
    }
  }

  const next: SymbolLedger = { symbol, forming };
  const ownMark = ledger?.lastTrade;
  if (latest !== undefined && (ownMark === undefined || latest.endMs - 1 > ownMark.timestamp)) {
    const mark: TradeMark = { timestamp: latest.endMs - 1, tradeId: HISTORY_TRADE_ID };
    next.lastTrade = mark;
    next.price = { price: latest.close, volume: 0, ...mark };
  } else {
    if (ownMark !== undefined) next.lastTrade = ownMark;
    if (ledger?.recentTrades !== undefined) next.recentTrades = ledger.recentTrades;
    if (ledger?.price !== undefined) next.price = ledger.price;
  }
  if (Object.keys(recent).length > 0) next.recent = recent;
  if (Object.keys(fired).length > 0) next.fired = fired;
  return { ledger: next, displaced };
}

/** A canonical text of a ledger (keys sorted at every level): equal ledgers, equal texts. */
export function ledgerKey(ledger: SymbolLedger | undefined): string {
  return JSON.stringify(ledger ?? null, (_key, value: unknown) =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value,
  );
}
