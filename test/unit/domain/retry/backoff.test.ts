import { describe, expect, it } from 'vitest';
import { type Backoff, backoffDelayMs } from '#domain/retry/backoff';

const full: Backoff = { baseMs: 100, capMs: 1_000, jitter: 'full' };
const equal: Backoff = { ...full, jitter: 'equal' };

describe('backoffDelayMs', () => {
  it('doubles the ceiling per attempt up to the cap', () => {
    const almostOne = 1 - Number.EPSILON;
    expect([0, 1, 2, 3, 4, 30].map((attempt) => backoffDelayMs(attempt, almostOne, full))).toEqual([
      99, 199, 399, 799, 999, 999,
    ]);
  });

  it('full jitter waits anywhere from nothing to the ceiling', () => {
    expect(backoffDelayMs(2, 0, full)).toBe(0);
    expect(backoffDelayMs(2, 0.5, full)).toBe(200);
  });

  it('equal jitter keeps half the ceiling as a floor', () => {
    expect(backoffDelayMs(2, 0, equal)).toBe(200);
    expect(backoffDelayMs(2, 0.5, equal)).toBe(300);
    expect(backoffDelayMs(30, 0, equal)).toBe(500);
  });

  it('treats a negative attempt as the first', () => {
    expect(backoffDelayMs(-3, 0.5, full)).toBe(50);
  });

  it('has no cap unless one is given', () => {
    expect(backoffDelayMs(20, 0.5, { baseMs: 1, capMs: Number.POSITIVE_INFINITY, jitter: 'full' })).toBe(
      2 ** 19,
    );
  });
});
