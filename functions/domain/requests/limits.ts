/** Request limits of the spec (section 8) and of strat-rules section 8, in one place. */
export const MAX_SYMBOLS_PER_REQUEST = 250;

/** No tracked ticker is longer; a longer one names no instrument. */
export const MAX_SYMBOL_LENGTH = 32;

export interface ClampedLimit {
  readonly default: number;
  readonly min: number;
  readonly max: number;
}

export const INSTRUMENTS_LIMIT: ClampedLimit = { default: 50, min: 1, max: 200 };

export const CANDLES_LIMIT: ClampedLimit = { default: 500, min: 1, max: 5000 };

/** strat-rules section 8. */
export const SETUPS_LIMIT: ClampedLimit = { default: 100, min: 1, max: 1000 };
export const ALERTS_LIMIT: ClampedLimit = { default: 100, min: 1, max: 1000 };
export const ALERTS_WINDOW_MINUTES: ClampedLimit = { default: 1440, min: 1, max: 10_080 };
