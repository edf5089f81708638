import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelay, sleep } from '../../../../clients/typescript/src/backoff.ts';

describe('backoffDelay', () => {
  it('doubles its ceiling per attempt, drawing between half the ceiling and the ceiling', () => {
    const options = { baseDelayMs: 1000, maxDelayMs: 30_000 };
    expect([0, 1, 2, 3].map((attempt) => backoffDelay(attempt, options, () => 0))).toEqual([
      500, 1000, 2000, 4000,
    ]);
    expect([0, 1, 2, 3].map((attempt) => backoffDelay(attempt, options, () => 1))).toEqual([
      1000, 2000, 4000, 8000,
    ]);
  });

  it('never exceeds maxDelayMs, however many attempts', () => {
    fc.assert(
      fc.property(fc.nat(200), fc.double({ min: 0, max: 1, noNaN: true }), (attempt, draw) => {
        const delay = backoffDelay(attempt, { baseDelayMs: 100, maxDelayMs: 5000 }, () => draw);
        return delay >= 50 && delay <= 5000;
      }),
    );
  });

  it("waits at least a server's Retry-After, capped at maxDelayMs", () => {
    expect(backoffDelay(0, { baseDelayMs: 100 }, () => 0, 1000)).toBe(1000);
    expect(backoffDelay(0, { baseDelayMs: 100, maxDelayMs: 2000 }, () => 0, 60_000)).toBe(2000);
  });
});

describe('sleep', () => {
  it('rejects with the reason as soon as its signal aborts', async () => {
    const controller = new AbortController();
    const waiting = sleep(60_000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
  });
});
