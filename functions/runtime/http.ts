import type { APIGatewayProxyResult } from 'aws-lambda';
import { BODILESS_ERRORS, ERROR_STATUS, type ErrorCode, errorEnvelope } from '#contracts/errors';

const JSON_HEADERS = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };

export function jsonResponse(statusCode: number, body: unknown): APIGatewayProxyResult {
  return { statusCode, headers: JSON_HEADERS, body: JSON.stringify(body) };
}

export function errorResponse(code: ErrorCode, message?: string): APIGatewayProxyResult {
  if (BODILESS_ERRORS.has(code)) return { statusCode: ERROR_STATUS[code], body: '' };
  return jsonResponse(ERROR_STATUS[code], errorEnvelope(code, message));
}
