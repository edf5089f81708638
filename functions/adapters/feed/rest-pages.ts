/**
 * One page of a provider's REST endpoint, fetched with retries (docs/data-sources.md#gap-fills-that-finish):
 * a 429, a 5xx, a network error or a time-out is tried again after an exponential backoff with full jitter,
 * or after the `Retry-After` the provider names (seconds or an HTTP date), up to a bounded number of
 * attempts. Any other answer (401, 403, 404, a redirect...) fails at once: trying again cannot change it,
 * and a redirect is never followed (the credentials go to the configured origin only). The caller
 * keeps the pages it already has and resumes from the failing one.
 *
 * An `AbortSignal` (the connector's stop) ends a request under way and any wait at once: the page fails with
 * the reason `stopped` (docs/data-sources.md#stopping-during-a-gap-fill).
 */
import { setTimeout as delay } from 'node:timers/promises';
import { backoffDelayMs } from '#domain/retry/backoff';

export interface RestRetryPolicy {
  /** Attempts per page, the first included. */
  readonly attempts: number;
  /** The backoff's first ceiling; it doubles per attempt up to `maxDelayMs`. */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** A longer `Retry-After` is cut to this (the gap fill holds live trades meanwhile). */
  readonly maxRetryAfterMs: number;
  /** One request's time limit. */
  readonly requestTimeoutMs: number;
  readonly random: () => number;
  /** Waits `ms`; resolves early once `signal` aborts. */
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly nowMs: () => number;
}

export const REST_RETRY: RestRetryPolicy = {
  attempts: 5,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 30_000,
  requestTimeoutMs: 30_000,
  random: Math.random,
  sleep: (ms, signal) => delay(ms, undefined, signal ? { signal } : {}).catch(() => {}),
  nowMs: Date.now,
};

/** The reason of a page, and of a fill's unfilled spans, when the fill was aborted. */
export const STOPPED = 'stopped';

export type PageOutcome =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly reason: string };

/** Milliseconds a `Retry-After` header asks to wait (delta-seconds or an HTTP date), or undefined. */
export function retryAfterMs(header: string | null, nowMs: number): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1_000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

const retryableStatus = (status: number) => status === 429 || status >= 500;

/**
 * GETs `url` until it answers 2xx (its body's text), a final refusal, or the attempts run out; or until
 * `signal` aborts (reason `stopped`).
 */
export async function getPage(
  url: string,
  headers: Record<string, string>,
  policy: RestRetryPolicy = REST_RETRY,
  signal?: AbortSignal,
): Promise<PageOutcome> {
  const stopped = { ok: false, reason: STOPPED } as const;
  let reason = 'not tried';
  for (let attempt = 0; attempt < policy.attempts; attempt++) {
    if (signal?.aborted) return stopped;
    let asked: number | undefined;
    const timeout = AbortSignal.timeout(policy.requestTimeoutMs);
    try {
      // A redirect is not followed: the credentials in `headers` would go wherever it points.
      const response = await fetch(url, {
        headers,
        redirect: 'manual',
        signal: signal === undefined ? timeout : AbortSignal.any([timeout, signal]),
      });
      if (response.ok) return { ok: true, text: await response.text() };
      await response.body?.cancel();
      reason = `answered ${response.status}`;
      if (!retryableStatus(response.status)) return { ok: false, reason };
      asked = retryAfterMs(response.headers.get('retry-after'), policy.nowMs());
    } catch (error) {
      if (signal?.aborted) return stopped;
      reason = `request failed: ${error instanceof Error ? error.message : String(error)}`;
    }
    if (attempt + 1 === policy.attempts) break;
    const backoff = backoffDelayMs(attempt, policy.random(), {
      baseMs: policy.baseDelayMs,
      capMs: policy.maxDelayMs,
      jitter: 'full',
    });
    await policy.sleep(asked === undefined ? backoff : Math.min(asked, policy.maxRetryAfterMs), signal);
    if (signal?.aborted) return stopped;
  }
  return { ok: false, reason: `${reason} (${policy.attempts} attempts)` };
}

/** Whether `url` is on `origin`'s scheme, host and port (a credential goes nowhere else). */
export function isSameOrigin(url: string, origin: string): boolean {
  try {
    return new URL(url).origin === new URL(origin).origin;
  } catch {
    return false;
  }
}
