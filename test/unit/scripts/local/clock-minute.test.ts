import { describe, expect, it } from 'vitest';
import { oncePerClockMinute } from '../../../../scripts/local/clock-minute.ts';

describe('oncePerClockMinute', () => {
  it('runs once per minute of the service clock, and again when the clock is moved to another minute', async () => {
    let now = Date.parse('2024-11-26T14:30:05Z');
    const runs: number[] = [];
    const tick = oncePerClockMinute(
      () => now,
      async (label: number) => {
        runs.push(label);
        return label;
      },
    );

    expect(await tick(1)).toBe(1);
    now += 50_000;
    expect(await tick(2)).toBeUndefined();
    now += 5_000;
    expect(await tick(3)).toBe(3);
    now -= 3_600_000;
    expect(await tick(4)).toBe(4);
    expect(runs).toEqual([1, 3, 4]);
  });

  it('runs again within the minute after a run that failed', async () => {
    const now = Date.parse('2024-11-26T14:30:05Z');
    let calls = 0;
    const tick = oncePerClockMinute(
      () => now,
      async () => {
        calls++;
        if (calls === 1) throw new Error('the tick failed');
        return calls;
      },
    );

    await expect(tick()).rejects.toThrow('the tick failed');
    expect(await tick()).toBe(2);
    expect(await tick()).toBeUndefined();
  });
});
