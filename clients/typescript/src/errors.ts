import type { ErrorCode, ErrorEnvelope } from './contracts.ts';

/**
 * What `MarketDataError.code` can be: the service's error codes (docs/partner-guide.md#errors), the bodiless
 * 404 of an unknown interval, a failure before any answer (`network_error`, `timeout`), a 2xx that is not
 * JSON (`invalid_response`), or `http_<status>` for an answer without the envelope.
 */
export type ClientErrorCode =
  | ErrorCode
  | 'unknown_interval'
  | 'network_error'
  | 'timeout'
  | 'invalid_response'
  | `http_${number}`;

/**
 * A refused or failed request: the HTTP status and the error envelope's `code` (docs/partner-guide.md#errors).
 * A 404 without a body (an unknown candle interval) has the code `unknown_interval`; a failure before any
 * answer (the network) has status 0 and the code `network_error`.
 */
export class MarketDataError extends Error {
  override readonly name = 'MarketDataError';

  constructor(
    readonly status: number,
    readonly code: ClientErrorCode,
    message: string,
    /** From `Retry-After` on a 429, in milliseconds. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }

  /** Whether sending the same request again may succeed: throttling, our fault, the network. */
  get retryable(): boolean {
    return this.status === 0 || this.status === 429 || this.status >= 500;
  }
}

/** A non-2xx response as a MarketDataError, reading the envelope when there is one. */
export async function errorOf(response: Response): Promise<MarketDataError> {
  const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
  const text = await response.text().catch(() => '');
  if (text === '' && response.status === 404) {
    return new MarketDataError(404, 'unknown_interval', 'unknown interval', retryAfterMs);
  }
  const envelope = parseEnvelope(text);
  if (envelope)
    return new MarketDataError(
      response.status,
      envelope.error.code as ErrorCode,
      envelope.error.message,
      retryAfterMs,
    );
  return new MarketDataError(
    response.status,
    `http_${response.status}`,
    text.slice(0, 200) || response.statusText,
    retryAfterMs,
  );
}

function parseEnvelope(text: string): ErrorEnvelope | undefined {
  try {
    const value = JSON.parse(text) as Partial<ErrorEnvelope>;
    const error = value?.error;
    return typeof error?.code === 'string' && typeof error.message === 'string'
      ? (value as ErrorEnvelope)
      : undefined;
  } catch {
    return undefined;
  }
}

/** `Retry-After` as milliseconds: delay-seconds or an HTTP date; `undefined` when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}
