/**
 * Per-key REST throughput (docs/partner-guide.md#limits-and-throttling: sustained, with bursts). The usage
 * plan on AWS and the local gateway's token bucket both take these numbers.
 */
export const REST_THROTTLE = {
  /** Sustained requests per second per key. */
  rateLimit: 25,
  /** Requests a key may make at once above the sustained rate. */
  burstLimit: 100,
} as const;
