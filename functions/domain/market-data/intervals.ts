/**
 * The candle intervals of the service (the `interval` of docs/partner-guide.md#candles), shortest first.
 * Intraday intervals step from the session open; `1d` and longer are made of whole sessions
 * (docs/candles.md#intervals).
 */
export const INTERVALS = ['1m', '15m', '30m', '60m', '4h', '1d', '1w', '1mo', '1q', '1y'] as const;

export type Interval = (typeof INTERVALS)[number];

export const INTRADAY_INTERVALS = ['1m', '15m', '30m', '60m', '4h'] as const;

export type IntradayInterval = (typeof INTRADAY_INTERVALS)[number];

/** The intervals made of whole sessions. */
export type SessionInterval = Exclude<Interval, IntradayInterval>;

/** Length of an intraday period (the last period of a session is cut at the close). */
export const INTRADAY_STEP_MS: Readonly<Record<IntradayInterval, number>> = Object.freeze({
  '1m': 60_000,
  '15m': 15 * 60_000,
  '30m': 30 * 60_000,
  '60m': 60 * 60_000,
  '4h': 4 * 60 * 60_000,
});

const INTERVAL_SET: ReadonlySet<string> = new Set(INTERVALS);
const INTRADAY_SET: ReadonlySet<string> = new Set(INTRADAY_INTERVALS);

/** True for exactly the ten interval names, case-sensitive (`1M` is not `1m`). */
export function isInterval(value: unknown): value is Interval {
  return typeof value === 'string' && INTERVAL_SET.has(value);
}

/** True for `1m`, `15m`, `30m`, `60m` and `4h`: periods shorter than a session. */
export function isIntraday(interval: Interval): interval is IntradayInterval {
  return INTRADAY_SET.has(interval);
}
