import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import { lambdaContext } from '../../scripts/local/lambda-context.ts';

/** API Gateway REST proxy events as handlers receive them, for unit tests. */
export function restEvent(options: {
  resource: string;
  query?: Record<string, string>;
  pathParameters?: Record<string, string>;
}): APIGatewayProxyEvent {
  return {
    resource: options.resource,
    path: options.resource,
    httpMethod: 'GET',
    headers: {},
    multiValueHeaders: {},
    queryStringParameters: options.query ?? null,
    multiValueQueryStringParameters: null,
    pathParameters: options.pathParameters ?? null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: {} as APIGatewayProxyEvent['requestContext'],
  };
}

export function authorizerEvent(options: {
  resource: string;
  headers?: Record<string, string>;
  method?: string;
}): APIGatewayRequestAuthorizerEvent {
  const method = options.method ?? 'GET';
  return {
    type: 'REQUEST',
    methodArn: `arn:aws:execute-api:us-east-1:123456789012:api/live/${method}${options.resource}`,
    resource: options.resource,
    path: options.resource,
    httpMethod: method,
    headers: options.headers ?? {},
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    requestContext: {} as APIGatewayRequestAuthorizerEvent['requestContext'],
  };
}

export const context = (): Context => lambdaContext('test');

/** The parsed JSON body of a handler's result. */
export function bodyOf(result: { body: string }): unknown {
  return JSON.parse(result.body);
}
