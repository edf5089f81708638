import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { bodyTemplate, type GatewayResponseType, gatewayResponse } from '#contracts/gateway-responses';
import { REST_ROUTES, type RestRoute, resourcePath } from '#contracts/routes';
import { invokeLocally } from './lambda-context.ts';
import { RequestUsage } from './request-usage.ts';
import type { TokenBuckets } from './token-bucket.ts';

/**
 * The local stand-in for API Gateway's REST API
 * (docs/architecture.md#local-stack-the-same-code-on-embedded-parts): the route table, the REQUEST
 * authorizer, per-key throttling and the gateway responses, invoking the same handlers with API
 * Gateway-shaped events.
 */
export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
export type AuthorizerHandler = (
  event: APIGatewayRequestAuthorizerEvent,
  context: Context,
) => Promise<APIGatewayAuthorizerResult>;

export interface LoadedRoute {
  readonly route: RestRoute;
  readonly pattern: RegExp;
  readonly handler: ProxyHandler;
}

export interface HttpAnswer {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

const STAGE = 'live';
const LOCAL_API_ID = 'local';

function routePattern(route: RestRoute): RegExp {
  const literal = resourcePath(route).replace(/[.*+?^$()|[\]\\]/g, '\\$&');
  return new RegExp(`^${literal.replace(/\{(\w+)\}/g, '(?<$1>[^/]+)')}$`);
}

/** Each route of the route table with its handler (scripts/local/handlers.ts builds them). */
export function restRoutes(handlers: Readonly<Record<RestRoute['id'], ProxyHandler>>): LoadedRoute[] {
  return (REST_ROUTES as readonly RestRoute[]).map((route) => {
    const handler = handlers[route.id];
    if (!handler) throw new Error(`no local handler for the route ${route.id}`);
    return { route, pattern: routePattern(route), handler };
  });
}

/** A gateway response rendered from its template, as API Gateway renders `$context` variables. */
export function renderGatewayResponse(
  type: GatewayResponseType,
  context: { authorizer?: Record<string, unknown>; errorMessage?: string; statusCode?: number } = {},
): HttpAnswer {
  const response = gatewayResponse(type);
  const variables: Record<string, string> = {
    'context.error.messageString': JSON.stringify(context.errorMessage ?? ''),
  };
  for (const [key, value] of Object.entries(context.authorizer ?? {})) {
    variables[`context.authorizer.${key}`] = String(value);
  }
  const body = bodyTemplate(response).replace(
    /\$(context(?:\.\w+)+)/g,
    (_m, name: string) => variables[name] ?? '',
  );
  return {
    statusCode: response.statusCode ?? context.statusCode ?? 500,
    headers: { 'Content-Type': 'application/json', ...response.headers },
    body,
  };
}

/**
 * An empty map for names a request chooses (headers, query and path parameters): without a prototype, so a
 * name like `constructor` or `__proto__` is a name like any other, not Object.prototype's property.
 */
export function requestNameMap<Value>(): Record<string, Value> {
  return Object.create(null) as Record<string, Value>;
}

export function requestHeaders(request: IncomingMessage) {
  const headers = requestNameMap<string>();
  const multiValueHeaders = requestNameMap<string[]>();
  for (let index = 0; index < request.rawHeaders.length; index += 2) {
    const name = request.rawHeaders[index] ?? '';
    const value = request.rawHeaders[index + 1] ?? '';
    const values = multiValueHeaders[name] ?? [];
    values.push(value);
    multiValueHeaders[name] = values;
    headers[name] = value;
  }
  return { headers, multiValueHeaders };
}

function queryParameters(url: URL) {
  if ([...url.searchParams.keys()].length === 0) {
    return { queryStringParameters: null, multiValueQueryStringParameters: null };
  }
  const single = requestNameMap<string>();
  const multi = requestNameMap<string[]>();
  for (const [name, value] of url.searchParams) {
    single[name] = value;
    const values = multi[name] ?? [];
    values.push(value);
    multi[name] = values;
  }
  return { queryStringParameters: single, multiValueQueryStringParameters: multi };
}

export function isAllowed(result: APIGatewayAuthorizerResult): boolean {
  const statements = result.policyDocument.Statement as { Effect: string }[];
  return (
    statements.some((statement) => statement.Effect === 'Allow') &&
    !statements.some((statement) => statement.Effect === 'Deny')
  );
}

export class LocalRestGateway {
  constructor(
    private readonly routes: readonly LoadedRoute[],
    private readonly authorizer: AuthorizerHandler,
    private readonly buckets: TokenBuckets,
    /** Requests counted per day, account and key (`GET /_local/usage`, `npm run usage`). */
    readonly usage: RequestUsage = new RequestUsage(),
  ) {}

  async handle(request: IncomingMessage): Promise<HttpAnswer> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const method = request.method ?? 'GET';
    const match = this.match(method, url.pathname);
    if (!match) return renderGatewayResponse('MISSING_AUTHENTICATION_TOKEN');

    const { route, handler, pathParameters } = match;
    const requestId = randomUUID();
    const resource = resourcePath(route);
    const methodArn = `arn:aws:execute-api:us-east-1:000000000000:${LOCAL_API_ID}/${STAGE}/${method}${url.pathname}`;
    const common = {
      resource,
      path: url.pathname,
      httpMethod: method,
      ...requestHeaders(request),
      ...queryParameters(url),
      pathParameters: pathParameters ?? null,
      stageVariables: null,
    };
    const requestContext = {
      accountId: '000000000000',
      apiId: LOCAL_API_ID,
      stage: STAGE,
      requestId,
      resourceId: route.id,
      resourcePath: resource,
      httpMethod: method,
      path: `/${STAGE}${url.pathname}`,
      protocol: 'HTTP/1.1',
      requestTimeEpoch: Date.now(),
      identity: { sourceIp: request.socket.remoteAddress ?? '127.0.0.1' },
    };

    let authorization: APIGatewayAuthorizerResult;
    try {
      const authorizerEvent = {
        type: 'REQUEST',
        methodArn,
        ...common,
        requestContext,
      } as unknown as APIGatewayRequestAuthorizerEvent;
      authorization = await invokeLocally('authorizer', (context) =>
        this.authorizer(authorizerEvent, context),
      );
    } catch (error) {
      if (error instanceof Error && error.message === 'Unauthorized')
        return renderGatewayResponse('UNAUTHORIZED');
      return renderGatewayResponse('DEFAULT_5XX', { statusCode: 500 });
    }
    if (!isAllowed(authorization)) {
      return renderGatewayResponse('ACCESS_DENIED', { authorizer: authorization.context ?? {} });
    }
    if (!this.buckets.take(authorization.usageIdentifierKey ?? authorization.principalId)) {
      return renderGatewayResponse('THROTTLED');
    }
    const { accountId, keyId } = (authorization.context ?? {}) as { accountId?: string; keyId?: string };
    if (accountId && keyId) this.usage.count(accountId, keyId);

    const event = {
      ...common,
      isBase64Encoded: false,
      body: null,
      requestContext: {
        ...requestContext,
        authorizer: { ...authorization.context, principalId: authorization.principalId },
      },
    } as unknown as APIGatewayProxyEvent;
    try {
      const result = await invokeLocally(route.id, (context) => handler(event, context));
      return {
        statusCode: result.statusCode,
        headers: Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, v]) => [k, String(v)])),
        body: result.body,
      };
    } catch {
      // A Lambda that fails: API Gateway answers 502 through the DEFAULT_5XX response.
      return renderGatewayResponse('DEFAULT_5XX', { statusCode: 502 });
    }
  }

  private match(method: string, path: string) {
    for (const loaded of this.routes) {
      const found = loaded.pattern.exec(path);
      if (found && loaded.route.method === method) {
        const pathParameters = found.groups
          ? Object.assign(requestNameMap<string>(), found.groups)
          : undefined;
        return { ...loaded, pathParameters };
      }
    }
    return undefined;
  }
}
