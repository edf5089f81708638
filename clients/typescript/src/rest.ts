import { type BackoffOptions, backoffDelay, sleep } from './backoff.ts';
import { NEXT_SINCE_ID_HEADER } from './contracts.ts';
import { errorOf, MarketDataError } from './errors.ts';
import { USER_AGENT } from './version.ts';

/** Retries of one request (429, 5xx, network failures); 4xx other than 429 are never retried. */
export interface RetryOptions extends BackoffOptions {
  /** Retries after the first attempt (default 4; 0 turns retrying off). */
  readonly maxRetries?: number;
}

export const DEFAULT_MAX_RETRIES = 4;
/** How long one attempt may take before it fails as a retryable `timeout` (docs: clients/typescript/README.md). */
export const DEFAULT_TIMEOUT_MS = 30_000;

export interface RestTransportOptions {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly retry?: RetryOptions;
  /** Each attempt's limit in ms (default 30,000); one that takes longer fails as a retryable `timeout`. */
  readonly timeoutMs?: number;
  readonly fetch?: typeof fetch;
  /** For tests: the jitter's random source. */
  readonly random?: () => number;
  /** Told before each wait, for logging (attempt counts from 0). */
  readonly onRetry?: (info: { attempt: number; delayMs: number; error: MarketDataError }) => void;
}

export type QueryValue = string | number | boolean | readonly string[] | undefined;

export interface RestResponse<Body> {
  readonly body: Body;
  /** `X-Next-Since-Id` of the alert routes (docs/partner-guide.md#polling-past-a-narrow-filter). */
  readonly nextSinceId?: number;
  /** The `cursor` of the `Link: <...>; rel="next"` header of the paged listings (docs/partner-guide.md#paging-through-a-listing). */
  readonly nextCursor?: string;
}

/** Outside browsers (where a page cannot set it, and a cross-origin one would need CORS to allow it). */
const SENDS_USER_AGENT = typeof (globalThis as { document?: unknown }).document === 'undefined';

/** Fills `{name}` segments, percent-encoding each value (`ES1!` → `ES1%21`). */
export function pathOf(template: string, params: Readonly<Record<string, string>>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === '') throw new TypeError(`missing path parameter ${name}`);
    return encodeURIComponent(value).replaceAll('!', '%21');
  });
}

/** Query parameters as the service reads them: lists comma-separated, absent values left out. */
export function queryString(query: Readonly<Record<string, QueryValue>> = {}): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    search.set(name, Array.isArray(value) ? value.join(',') : String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** GETs below the REST base with the key, retrying what may succeed later (docs/partner-guide.md#errors). */
export class RestTransport {
  private readonly fetch: typeof fetch;
  private readonly baseUrl: string;

  constructor(private readonly options: RestTransportOptions) {
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  async get<Body>(path: string, query?: Readonly<Record<string, QueryValue>>, signal?: AbortSignal) {
    const url = `${this.baseUrl}${path}${queryString(query)}`;
    const maxRetries = this.options.retry?.maxRetries ?? DEFAULT_MAX_RETRIES;
    for (let attempt = 0; ; attempt++) {
      let error: MarketDataError;
      const timeoutMs = this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      const timeout = new AbortController();
      const timer = setTimeout(
        () => timeout.abort(new MarketDataError(0, 'timeout', `no answer within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const onCallerAbort = () => timeout.abort(signal?.reason);
      signal?.addEventListener('abort', onCallerAbort, { once: true });
      try {
        const response = await this.fetch(url, {
          headers: {
            'X-API-Key': this.options.apiKey,
            Accept: 'application/json',
            ...(SENDS_USER_AGENT ? { 'User-Agent': USER_AGENT } : {}),
          },
          signal: signal?.aborted ? signal : timeout.signal,
        });
        if (response.ok) return await readBody<Body>(response);
        error = await errorOf(response);
      } catch (cause) {
        if (signal?.aborted) throw cause;
        if (cause instanceof MarketDataError && cause.code !== 'timeout') throw cause;
        error =
          cause instanceof MarketDataError
            ? cause
            : timeout.signal.aborted
              ? (timeout.signal.reason as MarketDataError)
              : new MarketDataError(
                  0,
                  'network_error',
                  cause instanceof Error ? cause.message : String(cause),
                );
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onCallerAbort);
      }
      if (!error.retryable || attempt >= maxRetries) throw error;
      const delayMs = backoffDelay(attempt, this.options.retry, this.options.random, error.retryAfterMs);
      this.options.onRetry?.({ attempt, delayMs, error });
      await sleep(delayMs, signal);
    }
  }
}

async function readBody<Body>(response: Response): Promise<RestResponse<Body>> {
  const text = await response.text();
  let body: Body;
  try {
    body = JSON.parse(text) as Body;
  } catch {
    throw new MarketDataError(response.status, 'invalid_response', 'the response is not JSON');
  }
  const next = response.headers.get(NEXT_SINCE_ID_HEADER);
  const nextSinceId = next === null ? undefined : Number(next);
  const nextCursor = nextCursorOf(response.headers.get('Link'));
  return {
    body,
    ...(Number.isSafeInteger(nextSinceId) ? { nextSinceId } : {}),
    ...(nextCursor === undefined ? {} : { nextCursor }),
  };
}

/** The `cursor` parameter of a Link header's `rel="next"` target (RFC 8288), if any. */
export function nextCursorOf(link: string | null): string | undefined {
  const target = link === null ? undefined : /<([^>]*)>\s*;\s*rel="?next"?/.exec(link)?.[1];
  if (target === undefined) return undefined;
  return new URL(target, 'http://base.invalid/').searchParams.get('cursor') ?? undefined;
}
