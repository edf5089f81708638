/**
 * Timeframe continuity (docs/strat.md#tfc-timeframe-continuity): for each timeframe with a bar, `green` if
 * the last price is above the open of the latest bar of that timeframe (forming or, between periods, the last
 * complete one), `red` if below, `yellow` if equal. Exact comparison, no rounding.
 */
import type { SymbolLedger } from '#domain/market-data/ledger';
import { TIMEFRAME_INTERVAL, TIMEFRAMES, type Timeframe } from './timeframes.ts';

export type TfcColor = 'green' | 'red' | 'yellow';

/** The colour of a price against a bar's open. */
export function tfcColor(price: number, open: number): TfcColor {
  return price > open ? 'green' : price < open ? 'red' : 'yellow';
}

/**
 * The TFC of a ledger: one colour per timeframe whose interval has a bar, keys in timeframe order; empty
 * without a last price. Does not depend on "now": the latest bar is the ledger's, whatever the clock says.
 */
export function tfcOf(ledger: SymbolLedger): Partial<Record<Timeframe, TfcColor>> {
  const tfc: Partial<Record<Timeframe, TfcColor>> = {};
  const price = ledger.price?.price;
  if (price === undefined) return tfc;
  for (const timeframe of TIMEFRAMES) {
    const bar = ledger.forming[TIMEFRAME_INTERVAL[timeframe]];
    if (bar !== undefined) tfc[timeframe] = tfcColor(price, bar.open);
  }
  return tfc;
}
