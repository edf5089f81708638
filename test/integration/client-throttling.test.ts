import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, MarketDataError } from '../../clients/typescript/src/index.ts';
import { startTestStack, type TestStack } from '../support/local-stack.ts';

/**
 * The client against the local gateway's per-key token bucket (as in rest-throttling.test.ts): a burst of 2
 * refilled at 2 tokens a second, so a third request at once is answered 429 with `Retry-After: 1`, and the
 * bucket has refilled by the time the client retries.
 */
let local: TestStack;
const BURST = 2;

beforeAll(async () => {
  local = await startTestStack({ throttle: { rateLimit: 2, burstLimit: BURST } });
});
afterAll(async () => {
  await local.stop();
});

describe('the client under throttling', () => {
  it('waits Retry-After on a 429 and retries until the request succeeds', async () => {
    const retries: { status: number; code: string; delayMs: number; retryAfterMs?: number }[] = [];
    const client = createClient({
      baseUrl: local.stack.restUrl,
      apiKey: local.stack.demoKey,
      retry: { maxRetries: 5, baseDelayMs: 100, maxDelayMs: 5_000 },
      onRetry: ({ delayMs, error }) =>
        retries.push({ status: error.status, code: error.code, delayMs, retryAfterMs: error.retryAfterMs }),
    });
    const statuses = await Promise.all(
      Array.from({ length: BURST + 1 }, () => client.getMarketStatus().then((status) => status.market)),
    );
    expect(statuses).toEqual(Array(BURST + 1).fill('stocks'));
    expect(retries.length).toBeGreaterThan(0);
    for (const retry of retries) {
      expect(retry).toMatchObject({ status: 429, code: 'rate_limit_exceeded', retryAfterMs: 1000 });
      // The wait is at least what the server asked for, whatever the backoff's jitter drew.
      expect(retry.delayMs).toBeGreaterThanOrEqual(1000);
    }
  });

  it('gives up after maxRetries with a MarketDataError carrying rate_limit_exceeded and Retry-After', async () => {
    const client = createClient({
      baseUrl: local.stack.restUrl,
      apiKey: local.stack.demoKey,
      retry: { maxRetries: 0 },
    });
    const outcomes = await Promise.allSettled(
      Array.from({ length: BURST + 3 }, () => client.getMarketStatus()),
    );
    const refused = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
    expect(refused.length).toBeGreaterThan(0);
    for (const error of refused) {
      expect(error).toBeInstanceOf(MarketDataError);
      expect(error).toMatchObject({ status: 429, code: 'rate_limit_exceeded', retryAfterMs: 1000 });
    }
  });
});
