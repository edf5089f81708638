/**
 * Per-key REST throughput outside volatile periods (docs/partner-guide.md#limits-and-throttling: sustained,
 * with bursts). The usage plan on AWS and the local gateway's token bucket both follow
 * functions/domain/access/throughput.ts, which picks these or REST_THROTTLE_VOLATILE.
 */
export const REST_THROTTLE = {
  /** Sustained requests per second per key. */
  rateLimit: 25,
  /** Requests a key may make at once above the sustained rate. */
  burstLimit: 100,
} as const;

/** Per-key REST throughput in volatile periods: twice the sustained rate, 2.5 times the burst. */
export const REST_THROTTLE_VOLATILE = {
  rateLimit: 50,
  burstLimit: 250,
} as const;

/** The environment variable naming the usage plan whose throttle the clock tick sets (AWS). */
export const USAGE_PLAN_ID_ENV = 'USAGE_PLAN_ID';

/** When a period is volatile: the session's first and last minutes, and the minutes after a break. */
export const VOLATILE_PERIODS = {
  afterOpenMinutes: 30,
  beforeCloseMinutes: 30,
  afterBreakMinutes: 15,
} as const;

/**
 * The REST stage's own limits, over every caller together, keyed or not: requests that fail authorization
 * count too, so a flood of unauthenticated requests is capped before it can take the whole account's Lambda
 * concurrency through the authorizer. Set well above the sum of what partners use.
 */
export const STAGE_THROTTLE = {
  rateLimit: 2_000,
  burstLimit: 4_000,
} as const;

/**
 * The AWS WAF rate-based rule on the REST stage: at most this many requests from one IP address in any
 * 5-minute window, then 429 `rate_limit_exceeded` until the rate falls. 30,000 per 5 minutes is 100 requests
 * a second: four partner keys at their full sustained rate behind one address still fit.
 */
export const WAF_REQUESTS_PER_IP_PER_5_MINUTES = 30_000;

/**
 * The WebSocket stage's route throttle, over every connection together (`$connect` and client messages):
 * a bound on what a flood of handshakes or messages can cost, far above what one connection per account
 * sends (subscribe, unsubscribe, ping).
 */
export const WS_STAGE_THROTTLE = {
  rateLimit: 500,
  burstLimit: 1_000,
} as const;
