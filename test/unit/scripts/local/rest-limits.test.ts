import { describe, expect, it } from 'vitest';
import { REST_THROTTLE, REST_THROTTLE_VOLATILE } from '#contracts/throttling';
import type { SimultaneousBreakBody } from '#domain/strat/alerts';
import { adjustRestThroughput } from '#use-cases/adjust-throughput';
import { LocalRestLimits } from '../../../../scripts/local/rest-limits.ts';
import { TokenBuckets } from '../../../../scripts/local/token-bucket.ts';
import { InMemoryEventFeed } from '../../../support/fakes.ts';

describe('LocalRestLimits', () => {
  it('starts at the sustained limits and takes what the clock tick applies, for its own stack only', async () => {
    const mine = new LocalRestLimits();
    const another = new LocalRestLimits();
    expect(await mine.current()).toEqual(REST_THROTTLE);
    await mine.apply(REST_THROTTLE_VOLATILE);
    expect(mine.read()).toEqual(REST_THROTTLE_VOLATILE);
    expect(another.read()).toEqual(REST_THROTTLE);
  });

  it('is what the gateway’s token buckets follow once the clock tick has set a volatile period', async () => {
    const limits = new LocalRestLimits();
    // 09:35 New York on a trading day: the first minutes of the session are volatile.
    const nowMs = Date.parse('2024-11-22T14:35:00Z');
    await adjustRestThroughput(nowMs, {
      breaks: new InMemoryEventFeed<SimultaneousBreakBody>(),
      target: limits,
    });
    const buckets = new TokenBuckets(
      () => limits.read(),
      () => 0,
    );
    const taken = Array.from({ length: REST_THROTTLE_VOLATILE.burstLimit + 1 }, () => buckets.take('k'));
    expect(taken.filter(Boolean)).toHaveLength(REST_THROTTLE_VOLATILE.burstLimit);
  });
});
