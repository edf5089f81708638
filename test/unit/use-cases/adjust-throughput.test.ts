import { describe, expect, it } from 'vitest';
import { REST_THROTTLE, REST_THROTTLE_VOLATILE } from '#contracts/throttling';
import type { RestLimits } from '#domain/access/throughput';
import type { SimultaneousBreakBody } from '#domain/strat/alerts';
import { adjustRestThroughput } from '#use-cases/adjust-throughput';
import { InMemoryEventFeed } from '../../support/fakes.ts';

function target(initial?: RestLimits) {
  const applied: RestLimits[] = [];
  let current = initial;
  return {
    applied,
    current: async () => current,
    apply: async (limits: RestLimits) => {
      applied.push(limits);
      current = limits;
    },
  };
}

const midday = Date.parse('2024-11-26T17:00:00Z');

describe('adjustRestThroughput', () => {
  it('applies the rule’s limits when they differ from those in force, and nothing when they do not', async () => {
    const breaks = new InMemoryEventFeed<SimultaneousBreakBody>();
    const usagePlan = target({ ...REST_THROTTLE_VOLATILE });
    expect(await adjustRestThroughput(midday, { breaks, target: usagePlan })).toMatchObject({
      changed: true,
      reason: 'base',
    });
    expect(await adjustRestThroughput(midday + 60_000, { breaks, target: usagePlan })).toMatchObject({
      changed: false,
    });
    expect(usagePlan.applied).toEqual([
      { rateLimit: REST_THROTTLE.rateLimit, burstLimit: REST_THROTTLE.burstLimit },
    ]);
  });

  it('raises them after a simultaneous break of the last 15 minutes', async () => {
    const breaks = new InMemoryEventFeed<SimultaneousBreakBody>();
    await breaks.append([
      {
        onceKey: 'D|bullish|p|2',
        triggeredAtMs: midday - 5 * 60_000,
        body: {
          timeframe: 'D',
          direction: 'bullish',
          threshold: 2,
          symbols: ['ES1!', 'NQ1!'],
          triggered_at: '',
        },
      },
    ]);
    const usagePlan = target({ ...REST_THROTTLE });
    expect(await adjustRestThroughput(midday, { breaks, target: usagePlan })).toMatchObject({
      changed: true,
      reason: 'simultaneous_breaks',
    });
    expect(usagePlan.applied).toEqual([
      { rateLimit: REST_THROTTLE_VOLATILE.rateLimit, burstLimit: REST_THROTTLE_VOLATILE.burstLimit },
    ]);
  });
});
