import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REST_ROUTES, type RestRoute } from '#contracts/routes';
import { SCOPES } from '#contracts/scopes';
import { createKey, revokeKey, setEntitlement } from '#scripts/lib/key-administration';
import { startTestStack, type TestStack } from '../support/local-stack.ts';

let local: TestStack;
const missingApiKey = { error: { code: 'missing_api_key', message: 'missing api key' } };

beforeAll(async () => {
  local = await startTestStack();
});
afterAll(async () => {
  await local.stop();
});

const keyWith = async (accountId: string, scopes: (typeof SCOPES)[number][]) =>
  (await createKey({ accountId, label: 'test', scopes }, local.stack.keyAdministration)).rawKey;

/** A request that each route answers with 200 for a key with its scope; a new route must add one. */
const SAMPLE_QUERIES: Record<string, string> = { getLatestPrices: '?symbols=AAPL' };
const pathOf = (route: RestRoute) =>
  `${route.path.replace('{symbol}', 'AAPL')}${SAMPLE_QUERIES[route.id] ?? ''}`;

describe('REST authentication over HTTP', () => {
  it.each([
    ['no key header', {}],
    ['an empty X-API-Key', { 'X-API-Key': '' }],
    ['an empty Bearer token', { Authorization: 'Bearer ' }],
    ['a malformed key', { 'X-API-Key': 'hello' }],
    ['a well-formed unknown key', { 'X-API-Key': `mda_abcdefghijkl_${'A'.repeat(43)}` }],
    ['a Basic authorization', { Authorization: 'Basic dXNlcjpwYXNz' }],
  ])('answers 401 missing_api_key for %s', async (_case, headers) => {
    const response = await local.get('/instruments', headers);
    expect(response.status).toBe(401);
    expect(response.body).toEqual(missingApiKey);
    expect(response.headers.get('content-type')).toBe('application/json');
  });

  it.each([
    ['X-API-Key', (key: string) => ({ 'X-API-Key': key })],
    ['x-api-key in lower case', (key: string) => ({ 'x-api-key': key })],
    ['Authorization: Bearer', (key: string) => ({ Authorization: `Bearer ${key}` })],
  ])('accepts the key in %s', async (_case, headersFor) => {
    const response = await local.get('/market-status', headersFor(local.stack.demoKey));
    expect(response.status).toBe(200);
  });

  it('answers 401 missing_api_key for a revoked key', async () => {
    const { record, rawKey } = await createKey(
      { accountId: 'revoker', label: 'soon revoked', scopes: ['metadata:read'] },
      local.stack.keyAdministration,
    );
    expect((await local.get('/market-status', { 'X-API-Key': rawKey })).status).toBe(200);

    await revokeKey(record.keyId, local.stack.keyAdministration);

    const response = await local.get('/market-status', { 'X-API-Key': rawKey });
    expect(response.status).toBe(401);
    expect(response.body).toEqual(missingApiKey);
  });

  it('answers 403 inactive_entitlement when the subscription lapsed, and 200 again once renewed', async () => {
    const rawKey = await keyWith('lapsing', ['metadata:read']);
    await setEntitlement({ accountId: 'lapsing', status: 'inactive' }, local.stack.keyAdministration);

    const denied = await local.get('/instruments', { 'X-API-Key': rawKey });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ error: { code: 'inactive_entitlement', message: 'inactive entitlement' } });

    await setEntitlement({ accountId: 'lapsing', status: 'active' }, local.stack.keyAdministration);
    expect((await local.get('/instruments', { 'X-API-Key': rawKey })).status).toBe(200);
  });

  it.each(REST_ROUTES.map((route) => [route.path, route] as const))(
    'answers 403 missing_scope on %s for a key with every other scope, 200 with its scope',
    async (_path, route) => {
      const without = await keyWith(
        'scoped',
        SCOPES.filter((scope) => scope !== route.scope),
      );
      const denied = await local.get(pathOf(route), { 'X-API-Key': without });
      expect(denied.status).toBe(403);
      expect(denied.body).toEqual({ error: { code: 'missing_scope', message: 'missing scope' } });

      const withScope = await keyWith('scoped', [route.scope]);
      expect((await local.get(pathOf(route), { Authorization: `Bearer ${withScope}` })).status).toBe(200);
    },
  );
});

describe('unknown routes over HTTP', () => {
  it.each([
    '/api/market/v1/nope',
    '/api/market/v1',
    '/api/market/v2/instruments',
    '/',
    '/api/market/v1/instruments/AAPL/extra',
  ])('answers 404 not_found for %s, with or without a key', async (path) => {
    for (const headers of [{}, { 'X-API-Key': local.stack.demoKey }] as Record<string, string>[]) {
      const response = await local.request(path, { headers });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: { code: 'not_found', message: 'not found' } });
    }
  });

  it('answers 404 not_found for a method the API does not have (the service is read-only)', async () => {
    const response = await local.request('/api/market/v1/instruments', {
      method: 'POST',
      headers: { 'X-API-Key': local.stack.demoKey },
      body: '{}',
    });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: { code: 'not_found', message: 'not found' } });
  });
});

describe('the demo key', () => {
  it('carries every scope', async () => {
    for (const route of REST_ROUTES) expect((await local.get(pathOf(route))).status).toBe(200);
  });
});
