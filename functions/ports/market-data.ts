import type { Bar, SymbolLedger } from '#domain/aggregation';
import type { Interval } from '#domain/intervals';

export interface Series {
  readonly symbol: string;
  readonly interval: Interval;
}

/** Bars a later period replaced in the ledger, one item per bar. */
export interface BarStore {
  /** At most `limit` bars of the series with fromTime <= time <= toTime, the most recent ones, oldest first. */
  query(series: Series, range: { fromTime?: number; toTime?: number; limit: number }): Promise<Bar[]>;
  putMany(bars: readonly (Series & { bar: Bar })[]): Promise<void>;
}

/** A ledger with the version it was read at, for optimistic concurrency. */
export interface VersionedLedger {
  readonly ledger: SymbolLedger;
  readonly version: number;
}

export interface LedgerStore {
  get(symbol: string): Promise<VersionedLedger | undefined>;
  getMany(symbols: readonly string[]): Promise<Map<string, VersionedLedger>>;
  /** Writes the ledger as version `previousVersion + 1` (0 when new); false if another writer got there first. */
  put(ledger: SymbolLedger, previousVersion: number | undefined): Promise<boolean>;
}
