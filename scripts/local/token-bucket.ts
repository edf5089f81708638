/**
 * API Gateway's throttling model (token bucket: `burstLimit` tokens, refilled at `rateLimit` per second),
 * one bucket per key, for the local gateway.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; updatedMs: number }>();

  constructor(
    private readonly limits: { readonly rateLimit: number; readonly burstLimit: number },
    private readonly nowMs: () => number = Date.now,
  ) {}

  /** Takes a token from the key's bucket; false when it is empty (the request is throttled). */
  take(key: string): boolean {
    const now = this.nowMs();
    const bucket = this.buckets.get(key) ?? { tokens: this.limits.burstLimit, updatedMs: now };
    const refilled = Math.min(
      this.limits.burstLimit,
      bucket.tokens + ((now - bucket.updatedMs) / 1000) * this.limits.rateLimit,
    );
    const allowed = refilled >= 1;
    this.buckets.set(key, { tokens: allowed ? refilled - 1 : refilled, updatedMs: now });
    return allowed;
  }
}
