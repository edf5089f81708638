/** How retries and reconnections wait: exponential backoff with full jitter, bounded. */
export interface BackoffOptions {
  /** The first wait's ceiling (default 1000 ms). */
  readonly baseDelayMs?: number;
  /** No wait exceeds this (default 30,000 ms: docs/partner-guide.md#limits-and-throttling). */
  readonly maxDelayMs?: number;
}

export const DEFAULT_BASE_DELAY_MS = 1_000;
export const DEFAULT_MAX_DELAY_MS = 30_000;

/**
 * The wait before retry `attempt` (0 for the first retry): a random time in [ceiling / 2, ceiling] where the
 * ceiling is `baseDelayMs * 2^attempt` capped at `maxDelayMs` ("equal jitter": never 0, so a crowd of clients
 * spreads out instead of all retrying at once, and never beyond the cap). `floorMs` (a server's
 * `Retry-After`) is a minimum, itself capped at `maxDelayMs`.
 */
export function backoffDelay(
  attempt: number,
  options: BackoffOptions = {},
  random: () => number = Math.random,
  floorMs = 0,
): number {
  const base = options.baseDelayMs ?? DEFAULT_BASE_DELAY_MS;
  const max = options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  const ceiling = Math.min(max, base * 2 ** Math.max(0, attempt));
  const jittered = ceiling / 2 + random() * (ceiling / 2);
  return Math.round(Math.min(max, Math.max(floorMs, jittered)));
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
