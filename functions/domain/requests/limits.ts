/** Request limits (docs/partner-guide.md#limits-and-throttling), in one place. */
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

/** The Strat endpoints (docs/partner-guide.md#limits-and-throttling). */
export const SETUPS_LIMIT: ClampedLimit = { default: 100, min: 1, max: 1000 };
export const ALERTS_LIMIT: ClampedLimit = { default: 100, min: 1, max: 1000 };
export const ALERTS_WINDOW_MINUTES: ClampedLimit = { default: 1440, min: 1, max: 10_080 };

/**
 * The alert and break feeds' per-request read bound (docs/partner-guide.md#polling-past-a-narrow-filter): a
 * request examines at most this many events from its starting point, whatever its filters.
 */
export const ALERTS_MAX_EXAMINED = 5_000;

/**
 * The alert and break feeds' per-request time bound (docs/partner-guide.md#polling-past-a-narrow-filter): a
 * request stops reading after this long and answers what it examined, well within the REST functions'
 * 10-second timeout (lib/constructs/service-function.ts), whatever the load on storage.
 */
export const ALERTS_READ_BUDGET_MS = 3_000;
