import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '#scripts/lib/key-administration';
import { startTestStack, type TestStack } from '../support/local-stack.ts';

let local: TestStack;
const BURST = 5;

beforeAll(async () => {
  // A slow bucket so the test does not depend on timing: 5 at once, then one every 100 s.
  local = await startTestStack({ throttle: { rateLimit: 0.01, burstLimit: BURST } });
});
afterAll(async () => {
  await local.stop();
});

describe('per-key throttling over HTTP', () => {
  it('answers 429 rate_limit_exceeded with Retry-After once a key has used its burst', async () => {
    const statuses: number[] = [];
    for (let index = 0; index < BURST; index++) statuses.push((await local.get('/market-status')).status);
    expect(statuses).toEqual(Array(BURST).fill(200));

    const throttled = await local.get('/market-status');
    expect(throttled.status).toBe(429);
    expect(throttled.body).toEqual({
      error: { code: 'rate_limit_exceeded', message: 'rate limit exceeded' },
    });
    expect(throttled.headers.get('retry-after')).toBe('1');
  });

  it('throttles each key on its own', async () => {
    const { rawKey } = await createKey(
      { accountId: 'second', label: 'other key', scopes: ['metadata:read'] },
      local.stack.keyAdministration,
    );
    expect((await local.get('/market-status', { 'X-API-Key': rawKey })).status).toBe(200);
  });

  it('does not spend tokens on requests without a valid key', async () => {
    for (let index = 0; index < BURST + 2; index++) {
      expect((await local.get('/market-status', { 'X-API-Key': 'bad' })).status).toBe(401);
    }
  });
});
