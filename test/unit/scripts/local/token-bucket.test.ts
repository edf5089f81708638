import { describe, expect, it } from 'vitest';
import { TokenBuckets } from '../../../../scripts/local/token-bucket.ts';

describe('TokenBuckets', () => {
  it('follows limits that change, as the clock tick sets them, at the next request', () => {
    let now = 0;
    let limits = { rateLimit: 1, burstLimit: 2 };
    const buckets = new TokenBuckets(
      () => limits,
      () => now,
    );
    expect([buckets.take('k'), buckets.take('k'), buckets.take('k')]).toEqual([true, true, false]);
    limits = { rateLimit: 10, burstLimit: 5 };
    now += 1_000;
    expect(Array.from({ length: 6 }, () => buckets.take('k'))).toEqual([true, true, true, true, true, false]);
  });

  it('keeps one bucket per key', () => {
    const buckets = new TokenBuckets({ rateLimit: 0, burstLimit: 1 }, () => 0);
    expect([buckets.take('a'), buckets.take('a'), buckets.take('b')]).toEqual([true, false, true]);
  });
});
