import type { Trade } from '#domain/market-data/bars';
import { type FoldResult, foldCandles } from '#domain/market-data/candle-fold';
import type { SymbolLedger } from '#domain/market-data/ledger';
import { type InForceEvent, InForceTracker } from './in-force.ts';

/** The Strat state of the call in progress (the fold is synchronous: one instance serves every call). */
const TRACKER = new InForceTracker();

export type TradeFoldResult = FoldResult<InForceEvent>;

/**
 * The ingest path's fold: a symbol's trades, in time order, into its candles and latest price
 * (functions/domain/market-data/candle-fold.ts) with the in-force alerts detected as the trades are applied
 * (functions/domain/strat/in-force.ts). Pure: returns a new ledger, the completed bars and the alerts.
 */
export function foldTrades(
  ledger: SymbolLedger | undefined,
  symbol: string,
  trades: readonly Trade[],
): TradeFoldResult {
  return foldCandles(ledger, symbol, trades, TRACKER);
}
