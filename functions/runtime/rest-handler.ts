import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type * as z from 'zod/mini';
import type { ErrorCode } from '#contracts/errors';
import { symbolFromPath } from '#domain/market-data/symbols';
import { ServiceError } from '#domain/requests/errors';
import { parseParams } from '#domain/requests/query-params';
import { countClientError } from './client-errors.ts';
import { errorResponse, jsonResponse } from './http.ts';
import { logContext, logger } from './logger.ts';

/** What a REST handler's logic receives: the parsed query and the raw path parameters. */
export interface RestRequest<Query> {
  readonly query: Query;
  readonly pathParameters: Readonly<Record<string, string | undefined>>;
  /** Adds a header to the 200 response (the body's shape is the route's contract; headers carry extras). */
  readonly setHeader: (name: string, value: string) => void;
}

/** A ticker from a route's `{symbol}` segment (API Gateway hands it over still percent-encoded). */
export function pathSymbol(request: RestRequest<unknown>): string {
  return symbolFromPath(request.pathParameters.symbol ?? '');
}

/**
 * Maps domain errors to the partner error envelope (docs/partner-guide.md#errors); anything else is a logged
 * 500 with no detail in the body.
 */
const errorEnvelope = (): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> => ({
  onError: async (request) => {
    if (request.error instanceof ServiceError) {
      request.response = errorResponse(request.error.code, request.error.message);
      countClientError(request.error.code);
      return;
    }
    logger.error('request failed', { error: request.error as Error });
    request.response = errorResponse('internal_error');
  },
});

/** A header a 200 response may carry besides its body (docs/openapi.json describes it). */
export interface ResponseHeader {
  readonly description: string;
  readonly schema: Readonly<Record<string, unknown>>;
}

/** What a route takes and gives: its query schema and its 200 response's schema (also the OpenAPI doc's). */
export interface RestContract<Query extends z.ZodMiniType, Response extends z.ZodMiniType> {
  readonly summary: string;
  readonly query: Query;
  readonly response: Response;
  /**
   * The error codes the route's own logic answers with (docs/partner-guide.md#errors), besides those of the
   * gateway that every route can give (no valid key, no entitlement or scope, throttling, internal error).
   */
  readonly errors: readonly ErrorCode[];
  /** Headers its 200 response may carry, by name. */
  readonly headers?: Readonly<Record<string, ResponseHeader>>;
}

/**
 * The one middy stack of every REST handler: logger context, query parsing with the route's zod schema,
 * the handler's logic (typed by the response schema), a 200 JSON response, and the error envelope.
 */
export function restHandler<Query extends z.ZodMiniType, Response extends z.ZodMiniType>(
  contract: RestContract<Query, Response>,
  handle: (request: RestRequest<z.output<Query>>) => Promise<z.input<Response>>,
) {
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
    .use(logContext())
    .use(errorEnvelope())
    .handler(async (event) => {
      const query = parseParams(
        contract.query,
        event.queryStringParameters,
        event.multiValueQueryStringParameters,
      );
      const headers: Record<string, string> = {};
      const setHeader = (name: string, value: string) => {
        headers[name] = value;
      };
      const body = await handle({ query, pathParameters: event.pathParameters ?? {}, setHeader });
      const response = jsonResponse(200, body);
      return { ...response, headers: { ...response.headers, ...headers } };
    });
}
