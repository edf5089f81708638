import { defaultMessage, type ErrorCode } from './errors.ts';

/**
 * API Gateway's own answers (docs/architecture.md#rest-api-api-gateway-rest-api-v1-not-an-http-api), rendered
 * in the partner error envelope (docs/partner-guide.md#errors). The CDK registers each as a gateway response;
 * the local gateway renders the same templates.
 *
 * `code` and `message` are either literal strings or API Gateway context variables. A context variable that
 * already renders as a JSON string (`$context.error.messageString`) is marked `quoted`.
 */
export type GatewayResponseType =
  | 'UNAUTHORIZED'
  | 'ACCESS_DENIED'
  | 'THROTTLED'
  | 'QUOTA_EXCEEDED'
  | 'INVALID_API_KEY'
  | 'MISSING_AUTHENTICATION_TOKEN'
  | 'RESOURCE_NOT_FOUND'
  | 'REQUEST_TOO_LARGE'
  | 'DEFAULT_4XX'
  | 'DEFAULT_5XX';

export interface TemplateValue {
  readonly literal?: string;
  readonly contextVariable?: string;
  /** The variable renders as a JSON string already, quotes included. */
  readonly quoted?: boolean;
}

export interface GatewayResponseDefinition {
  readonly type: GatewayResponseType;
  /** Absent: API Gateway keeps the status of the underlying error. */
  readonly statusCode?: number;
  readonly code: TemplateValue;
  readonly message: TemplateValue;
  readonly headers?: Readonly<Record<string, string>>;
}

const literal = (value: string): TemplateValue => ({ literal: value });
const documented = (code: string) => ({ code: literal(code), message: literal(defaultMessage(code)) });

/** Seconds a throttled client is told to wait before retrying. */
export const RETRY_AFTER_SECONDS = 1;

export const GATEWAY_RESPONSES: readonly GatewayResponseDefinition[] = [
  { type: 'UNAUTHORIZED', statusCode: 401, ...documented('missing_api_key') },
  // A key that is valid in our tables but not registered with the usage plan: "no valid key" to the caller.
  { type: 'INVALID_API_KEY', statusCode: 401, ...documented('missing_api_key') },
  // The authorizer's Deny context carries one of our own codes and its message (plain lower-case words),
  // so the unescaped `$context.authorizer.*` values always make valid JSON.
  {
    type: 'ACCESS_DENIED',
    statusCode: 403,
    code: { contextVariable: 'context.authorizer.code' },
    message: { contextVariable: 'context.authorizer.message' },
  },
  {
    type: 'THROTTLED',
    statusCode: 429,
    ...documented('rate_limit_exceeded'),
    headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  },
  {
    type: 'QUOTA_EXCEEDED',
    statusCode: 429,
    ...documented('rate_limit_exceeded'),
    headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  },
  // API Gateway answers an unknown route with 403 "Missing Authentication Token"; partners get a 404.
  { type: 'MISSING_AUTHENTICATION_TOKEN', statusCode: 404, ...documented('not_found') },
  { type: 'RESOURCE_NOT_FOUND', statusCode: 404, ...documented('not_found') },
  // Headers over API Gateway's limit (10,240 bytes of header values: "Quotas for configuring and running a
  // REST API" in API Gateway's developer guide) or a body over 10 MB. No gateway response type has a 431
  // ("Gateway response types for API Gateway"), and API Gateway is documented not to apply customisations of
  // this 413 yet: partners may get its default body, so docs/partner-guide.md#request-headers-over-the-limit
  // tells them to go by the status. The envelope is registered so that any body rendered carries our code.
  { type: 'REQUEST_TOO_LARGE', statusCode: 413, ...documented('request_too_large') },
  {
    type: 'DEFAULT_4XX',
    code: literal('bad_request' satisfies ErrorCode),
    message: { contextVariable: 'context.error.messageString', quoted: true },
  },
  { type: 'DEFAULT_5XX', ...documented('internal_error') },
];

/** The response body template with API Gateway's `$context` references, e.g. for `responseTemplates`. */
export function bodyTemplate(response: GatewayResponseDefinition): string {
  const render = (value: TemplateValue): string => {
    if (value.literal !== undefined) return JSON.stringify(value.literal);
    return value.quoted ? `$${value.contextVariable}` : `"$${value.contextVariable}"`;
  };
  return `{"error":{"code":${render(response.code)},"message":${render(response.message)}}}`;
}

export function gatewayResponse(type: GatewayResponseType): GatewayResponseDefinition {
  const response = GATEWAY_RESPONSES.find((candidate) => candidate.type === type);
  if (!response) throw new Error(`no gateway response ${type}`);
  return response;
}
