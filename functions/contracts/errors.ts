/**
 * Every error code the service answers with, and its HTTP status (docs/partner-guide.md#errors).
 * One table: handlers, the authorizer, the gateway responses and the local gateway all read it.
 */
export const ERROR_STATUS = {
  /** API Gateway's own 4xx answers (DEFAULT_4XX gateway response). */
  bad_request: 400,
  invalid_parameter: 400,
  missing_symbols: 400,
  missing_api_key: 401,
  inactive_entitlement: 403,
  missing_scope: 403,
  not_found: 404,
  unknown_symbol: 404,
  /** An unrecognized `interval` is a 404 with no body at all (docs/partner-guide.md#candles). */
  unknown_interval: 404,
  /**
   * On AWS, API Gateway's REQUEST_TOO_LARGE gateway response: headers over its limit (10,240 bytes of header
   * values in all) or a body over 10 MB, refused before the authorizer (docs/partner-guide.md#errors).
   */
  request_too_large: 413,
  rate_limit_exceeded: 429,
  /** The local stack's answer to headers over Node's limit (16 KB), which never reach the gateway. */
  request_headers_too_large: 431,
  internal_error: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Codes answered with their status and an empty body. */
export const BODILESS_ERRORS: ReadonlySet<ErrorCode> = new Set(['unknown_interval']);

export interface ErrorEnvelope {
  error: { code: string; message: string };
}

/**
 * The message for a documented code (docs/partner-guide.md#errors): the code in lower case with spaces for
 * underscores.
 */
export function defaultMessage(code: string): string {
  return code.toLowerCase().replaceAll('_', ' ');
}

export function errorEnvelope(code: string, message: string = defaultMessage(code)): ErrorEnvelope {
  return { error: { code, message } };
}
