/**
 * Per-key REST throughput (spec section 8: "dynamic, with burst capacity"). The usage plan on AWS and the
 * local gateway's token bucket both take these numbers.
 */
export const REST_THROTTLE = {
  /** Sustained requests per second per key. */
  rateLimit: 25,
  /** Requests a key may make at once above the sustained rate. */
  burstLimit: 100,
} as const;
