import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WriteWindow } from '#adapters/dynamo/write-window';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

/** A window whose calls are recorded, and fail while `failing` is set. */
function recordingWindow(options = { windowMs: 2, maxBatch: 3 }) {
  const calls: string[][] = [];
  let failing = false;
  const window = new WriteWindow<string>(async (items) => {
    calls.push([...items]);
    if (failing) throw new Error('the batch failed');
  }, options);
  return {
    window,
    calls,
    failCalls: (fail: boolean) => {
      failing = fail;
    },
  };
}

describe('WriteWindow', () => {
  it('sends what is added within the window in one call, resolving each once it is written', async () => {
    const { window, calls } = recordingWindow();
    const written: string[] = [];
    const adds = ['a', 'b'].map((item) => window.add(item).then(() => written.push(item)));

    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await Promise.all(adds);

    expect(calls).toEqual([['a', 'b']]);
    expect(written).toEqual(['a', 'b']);
  });

  it('sends a full batch at once, and opens a new window for what comes after', async () => {
    const { window, calls } = recordingWindow();
    const adds = ['a', 'b', 'c', 'd'].map((item) => window.add(item));

    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toEqual([['a', 'b', 'c']]);
    await vi.advanceTimersByTimeAsync(2);
    await Promise.all(adds);
    expect(calls).toEqual([['a', 'b', 'c'], ['d']]);
  });

  it('rejects every add of a failed call with its error, and writes later adds anew', async () => {
    const { window, calls, failCalls } = recordingWindow();
    failCalls(true);
    const failed = Promise.allSettled(['a', 'b'].map((item) => window.add(item)));
    await vi.advanceTimersByTimeAsync(2);

    expect((await failed).map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    expect((await failed)[0]).toMatchObject({ reason: new Error('the batch failed') });
    expect(calls).toEqual([['a', 'b']]);

    failCalls(false);
    const later = window.add('c');
    await vi.advanceTimersByTimeAsync(2);
    await expect(later).resolves.toBeUndefined();
    expect(calls).toEqual([['a', 'b'], ['c']]);
  });
});
