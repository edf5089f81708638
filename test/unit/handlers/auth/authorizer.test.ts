import { randomBytes } from 'node:crypto';
import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { REST_ROUTES, resourcePath } from '#contracts/routes';
import { SCOPES } from '#contracts/scopes';
import { issueApiKey } from '#domain/access/api-keys';
import type { Credential } from '#domain/access/ports';
import { createHandler } from '#handlers/auth/authorizer';
import { observeMetrics } from '#scripts/local/metric-points';
import { authorizerEvent, context } from '../../../support/events.ts';

const issued = issueApiKey(randomBytes);
const credential = (scopes: Credential['key']['scopes'], entitlement: 'active' | 'inactive' = 'active') => ({
  key: {
    keyId: issued.keyId,
    accountId: 'acme',
    label: 'l',
    scopes,
    secretHash: issued.secretHash,
    usageIdentifierKey: issued.usageIdentifierKey,
    createdAt: '2024-01-01T00:00:00Z',
  },
  account: { accountId: 'acme', entitlement, updatedAt: '2024-01-01T00:00:00Z' },
});
const authorizerWith = (found: Credential | undefined) =>
  createHandler({ credentials: () => async (keyId) => (keyId === issued.keyId ? found : undefined) });
const headers = { 'X-API-Key': issued.rawKey };

describe('authorizer', () => {
  it.each(REST_ROUTES.map((route) => [route.path, route] as const))(
    'allows %s for a key with its scope and returns the caller and usage identifier',
    async (_path, route) => {
      const event = authorizerEvent({ resource: resourcePath(route), headers });
      const result = await authorizerWith(credential([route.scope]))(event, context());
      expect(result).toEqual({
        principalId: 'acme',
        policyDocument: {
          Version: '2012-10-17',
          Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: event.methodArn }],
        },
        context: { accountId: 'acme', keyId: issued.keyId, scopes: route.scope },
        usageIdentifierKey: issued.usageIdentifierKey,
      });
    },
  );

  it.each(REST_ROUTES.map((route) => [route.path, route] as const))(
    'denies %s with missing_scope for a key with every other scope',
    async (_path, route) => {
      const others = SCOPES.filter((scope) => scope !== route.scope);
      const event = authorizerEvent({ resource: resourcePath(route), headers });
      const result = await authorizerWith(credential(others))(event, context());
      expect(result.policyDocument.Statement).toEqual([
        { Action: 'execute-api:Invoke', Effect: 'Deny', Resource: event.methodArn },
      ]);
      expect(result.context).toEqual({ code: 'missing_scope', message: 'missing scope' });
    },
  );

  it('denies inactive_entitlement for a lapsed account', async () => {
    const event = authorizerEvent({ resource: '/api/market/v1/instruments', headers });
    const result = await authorizerWith(credential([...SCOPES], 'inactive'))(event, context());
    expect(result.context).toEqual({ code: 'inactive_entitlement', message: 'inactive entitlement' });
  });

  it.each([
    ['no key', {}],
    ['an unknown key', { 'X-API-Key': issueApiKey(randomBytes).rawKey }],
  ])('throws Unauthorized (401 missing_api_key) for %s', async (_case, requestHeaders) => {
    const event = authorizerEvent({ resource: '/api/market/v1/instruments', headers: requestHeaders });
    await expect(authorizerWith(credential([...SCOPES]))(event, context())).rejects.toThrow('Unauthorized');
  });
});

const METHOD_ARN = 'arn:aws:execute-api:us-east-1:123456789012:wsapi1234/live/$connect';

/** The REQUEST authorizer event of a WebSocket `$connect`: no resource or HTTP method, a route key instead. */
function connectEvent(headers: Record<string, string>): APIGatewayRequestAuthorizerEvent {
  return {
    type: 'REQUEST',
    methodArn: METHOD_ARN,
    headers,
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    requestContext: {
      routeKey: '$connect',
      eventType: 'CONNECT',
      stage: 'live',
      connectionId: 'conn-1',
      apiId: 'wsapi1234',
    },
  } as unknown as APIGatewayRequestAuthorizerEvent;
}

describe('authorizer: WebSocket $connect', () => {
  it.each([
    ['X-API-Key', { 'X-API-Key': issued.rawKey }],
    ['Authorization: Bearer', { Authorization: `Bearer ${issued.rawKey}` }],
    ['a key. subprotocol', { 'Sec-WebSocket-Protocol': `market-data.v1, key.${issued.rawKey}` }],
  ])('allows a key with ws:connect (%s) and returns the caller in the context', async (_header, headers) => {
    const result = await authorizerWith(credential(['ws:connect', 'prices:read']))(
      connectEvent(headers),
      context(),
    );

    expect(result).toEqual({
      principalId: 'acme',
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: METHOD_ARN }],
      },
      context: { accountId: 'acme', keyId: issued.keyId, scopes: 'ws:connect,prices:read' },
      usageIdentifierKey: issued.usageIdentifierKey,
    });
  });

  it('denies missing_scope for a key with every scope but ws:connect', async () => {
    const others = SCOPES.filter((scope) => scope !== 'ws:connect');

    const result = await authorizerWith(credential(others))(
      connectEvent({ 'X-API-Key': issued.rawKey }),
      context(),
    );

    expect(result.policyDocument.Statement).toEqual([
      { Action: 'execute-api:Invoke', Effect: 'Deny', Resource: METHOD_ARN },
    ]);
    expect(result.context).toEqual({ code: 'missing_scope', message: 'missing scope' });
  });

  it('denies inactive_entitlement for a lapsed account even with ws:connect', async () => {
    const result = await authorizerWith(credential([...SCOPES], 'inactive'))(
      connectEvent({ 'X-API-Key': issued.rawKey }),
      context(),
    );

    expect(result.policyDocument.Statement[0]).toMatchObject({ Effect: 'Deny' });
    expect(result.context).toEqual({ code: 'inactive_entitlement', message: 'inactive entitlement' });
  });

  it.each([
    ['no key', {}],
    ['an empty key', { 'X-API-Key': '' }],
    ['an unknown key', { 'X-API-Key': issueApiKey(randomBytes).rawKey }],
  ])('throws Unauthorized (4401) for %s', async (_case, headers) => {
    await expect(authorizerWith(credential([...SCOPES]))(connectEvent(headers), context())).rejects.toThrow(
      'Unauthorized',
    );
  });
});

describe('authorizer: the key in a subprotocol (docs/websocket.md#connecting-from-a-browser)', () => {
  it('refuses 401 a handshake whose key. subprotocol holds an unknown key', async () => {
    const other = issueApiKey(randomBytes);
    await expect(
      authorizerWith(credential(['ws:connect']))(
        connectEvent({ 'Sec-WebSocket-Protocol': `market-data.v1, key.${other.rawKey}` }),
        context(),
      ),
    ).rejects.toThrow('Unauthorized');
  });

  it('refuses 401 a REST request that carries its key only in Sec-WebSocket-Protocol', async () => {
    const route = REST_ROUTES[0];
    if (!route) throw new Error('no REST route');
    await expect(
      authorizerWith(credential([...SCOPES]))(
        authorizerEvent({
          resource: resourcePath(route),
          headers: { 'Sec-WebSocket-Protocol': `market-data.v1, key.${issued.rawKey}` },
        }),
        context(),
      ),
    ).rejects.toThrow('Unauthorized');
  });
});

describe('authorizer metrics (docs/operations.md#metrics)', () => {
  it('counts each decision by outcome, a denial with its code, and never a key', async () => {
    const outcomes: (string | undefined)[] = [];
    const stop = observeMetrics(({ id, dimensionValue }) => {
      if (id === 'authorizerOutcomes') outcomes.push(dimensionValue);
    });
    try {
      const event = authorizerEvent({ resource: '/api/market/v1/instruments', headers });
      await authorizerWith(credential([...SCOPES]))(event, context());
      await authorizerWith(credential([...SCOPES], 'inactive'))(event, context());
      await expect(
        authorizerWith(credential([...SCOPES]))(
          authorizerEvent({ resource: '/api/market/v1/instruments', headers: {} }),
          context(),
        ),
      ).rejects.toThrow('Unauthorized');
    } finally {
      stop();
    }
    expect(outcomes).toEqual(['allow', '403:inactive_entitlement', '401']);
  });
});
