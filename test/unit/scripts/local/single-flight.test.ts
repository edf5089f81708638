import { describe, expect, it } from 'vitest';
import { singleFlight } from '../../../../scripts/local/single-flight.ts';

describe('singleFlight', () => {
  it('skips a call while the previous run is going, and runs again once it is done', async () => {
    const finish: (() => void)[] = [];
    let runs = 0;
    const tick = singleFlight(() => {
      runs++;
      return new Promise<void>((resolve) => finish.push(resolve));
    });

    tick();
    tick();
    tick();
    expect(runs).toBe(1);
    expect(tick.skipped()).toBe(2);

    finish[0]?.();
    await new Promise((resolve) => setImmediate(resolve));
    tick();
    expect(runs).toBe(2);
  });

  it('runs again after a run that failed', async () => {
    let runs = 0;
    const tick = singleFlight(async () => {
      runs++;
      throw new Error('the tick failed');
    });
    tick();
    await new Promise((resolve) => setImmediate(resolve));
    tick();
    expect(runs).toBe(2);
  });
});
