type Limits = { readonly rateLimit: number; readonly burstLimit: number };

/**
 * API Gateway's throttling model (token bucket: `burstLimit` tokens, refilled at `rateLimit` per second),
 * one bucket per key, for the local gateway. The limits are read at every take: they follow the rule the
 * clock tick applies (functions/domain/access/throughput.ts), as the usage plan's do on AWS.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; updatedMs: number }>();
  private readonly limits: () => Limits;

  constructor(
    limits: Limits | (() => Limits),
    private readonly nowMs: () => number = Date.now,
  ) {
    this.limits = typeof limits === 'function' ? limits : () => limits;
  }

  /** Takes a token from the key's bucket; false when it is empty (the request is throttled). */
  take(key: string): boolean {
    const now = this.nowMs();
    const { rateLimit, burstLimit } = this.limits();
    const bucket = this.buckets.get(key) ?? { tokens: burstLimit, updatedMs: now };
    const refilled = Math.min(burstLimit, bucket.tokens + ((now - bucket.updatedMs) / 1000) * rateLimit);
    const allowed = refilled >= 1;
    this.buckets.set(key, { tokens: allowed ? refilled - 1 : refilled, updatedMs: now });
    return allowed;
  }
}
