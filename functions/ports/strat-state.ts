import type { SetupRow, SymbolState } from '#domain/strat/setups';
import type { Timeframe } from '#domain/strat/timeframes';

/** A symbol's derived Strat state as last written (what `states` subscribers and `/setups/current` see). */
export interface StoredState extends SymbolState {
  readonly symbol: string;
  /** When it was derived (service clock, Unix ms). */
  readonly updatedAtMs: number;
}

export interface StateStore {
  getMany(symbols: readonly string[]): Promise<Map<string, StoredState>>;
  putMany(states: readonly StoredState[]): Promise<void>;
}

/** Setup rows by timeframe, in symbol order. */
export interface SetupStore {
  /** At most `limit` rows of the timeframe, in symbol order. */
  list(timeframe: Timeframe, limit: number): Promise<SetupRow[]>;
  write(changes: {
    readonly put: readonly SetupRow[];
    readonly remove: readonly Pick<SetupRow, 'symbol' | 'timeframe'>[];
  }): Promise<void>;
}
