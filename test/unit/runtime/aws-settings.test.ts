import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TABLES } from '#contracts/tables';
import { USAGE_PLAN_ID_ENV } from '#contracts/throttling';

/**
 * What runs on AWS holds no local stand-ins: a missing setting fails loudly, and the local stack's settings
 * mean nothing to the functions (the local stack passes its own ports: scripts/local/handlers.ts).
 */
const saved = { ...process.env };
beforeEach(() => {
  // Fresh modules: the environment and the providers are read once per Lambda instance.
  vi.resetModules();
});
afterEach(() => {
  process.env = { ...saved };
});

describe('the clock tick’s throughput target', () => {
  it('fails naming the variable when the usage plan is not set, rather than applying limits nowhere', async () => {
    delete process.env[USAGE_PLAN_ID_ENV];
    const { throughputTarget } = await import('#runtime/ports/throughput');
    expect(() => throughputTarget()).toThrow(/USAGE_PLAN_ID.*not set/);
  });

  it('is the usage plan the environment names', async () => {
    process.env[USAGE_PLAN_ID_ENV] = 'plan-1';
    const { throughputTarget } = await import('#runtime/ports/throughput');
    const { UsagePlanThrottle } = await import('#adapters/api-gateway/usage-plan-throttle');
    expect(throughputTarget()).toBeInstanceOf(UsagePlanThrottle);
  });
});

describe('the service clock', () => {
  it('is the system clock, whatever virtual-clock variables the environment holds', async () => {
    process.env.MARKET_CLOCK_START = '2020-01-01T00:00:00Z';
    process.env.MARKET_CLOCK_SPEED = '60';
    const { nowMs } = await import('#runtime/clock');
    const before = Date.now();
    const now = nowMs();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });
});

describe('the production ports', () => {
  it('fail naming the variable when their table’s name is not set, rather than guessing one', async () => {
    delete process.env[TABLES.ledgers.envVar];
    const { priceStore } = await import('#runtime/ports/market-data');
    expect(() => priceStore()).toThrow(new RegExp(`${TABLES.ledgers.envVar}.*not set`));
  });

  it('use the table the environment names', async () => {
    process.env[TABLES.ledgers.envVar] = 'ledgers-in-aws';
    process.env.AWS_REGION = 'us-east-1';
    const { priceStore } = await import('#runtime/ports/market-data');
    expect(priceStore()).toMatchObject({ ledgersTable: 'ledgers-in-aws' });
  });
});
