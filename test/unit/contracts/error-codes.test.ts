import { describe, expect, it } from 'vitest';
import { defaultMessage, ERROR_STATUS, type ErrorCode } from '#contracts/errors';
import { GATEWAY_RESPONSES, gatewayResponse } from '#contracts/gateway-responses';

/** One code, one status (docs/partner-guide.md#errors), wherever the code is answered. */
describe('error codes', () => {
  it('answers headers over the local limit with a code of their own, 431', () => {
    expect(ERROR_STATUS.request_headers_too_large).toBe(431);
    expect(defaultMessage('request_headers_too_large')).toBe('request headers too large');
  });

  it('gives API Gateway’s REQUEST_TOO_LARGE its own 413 code, not bad_request', () => {
    const response = gatewayResponse('REQUEST_TOO_LARGE');
    expect(response.statusCode).toBe(413);
    expect(response.code.literal).toBe('request_too_large');
    expect(response.message.literal).toBe('request too large');
    expect(ERROR_STATUS.request_too_large).toBe(413);
  });

  it.each(GATEWAY_RESPONSES.filter((response) => response.statusCode !== undefined && response.code.literal))(
    '$type answers its code’s own status',
    ({ statusCode, code }) => {
      expect(statusCode).toBe(ERROR_STATUS[code.literal as ErrorCode]);
    },
  );
});
