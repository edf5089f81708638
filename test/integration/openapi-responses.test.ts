import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '#scripts/lib/key-administration';
import { DEMO_ACCOUNT } from '../../scripts/local/demo-key.ts';
import { startTestStack, type TestStack } from '../support/local-stack.ts';

/**
 * Real answers of the local stack checked against docs/openapi.json with a JSON Schema validator (Ajv, the
 * document's dialect: JSON Schema 2020-12): each status must be declared for its route, each body must match
 * the declared schema, each declared header its schema, and a bodiless answer must be declared as such.
 */
interface ResponseObject {
  description: string;
  headers?: Record<string, { schema: Record<string, unknown> }>;
  content?: Record<string, { schema: Record<string, unknown> }>;
}
const document = JSON.parse(readFileSync('docs/openapi.json', 'utf8')) as {
  paths: Record<string, { get: { responses: Record<string, ResponseObject> } }>;
  components: { schemas: Record<string, Record<string, unknown>> };
};
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats.default(ajv);

const BURST = 40;
let local: TestStack;
let metadataOnlyKey: string;

beforeAll(async () => {
  local = await startTestStack({
    clock: { start: new Date('2024-11-22T16:00:00Z'), speed: 1 },
    throttle: { rateLimit: 0.01, burstLimit: BURST },
  });
  await local.replay('test/fixtures/strat-week.csv');
  ({ rawKey: metadataOnlyKey } = await createKey(
    { accountId: DEMO_ACCOUNT, label: 'metadata only', scopes: ['metadata:read'] },
    local.stack.keyAdministration,
  ));
}, 60_000);
afterAll(async () => {
  await local.stop();
});

function resolve(schema: Record<string, unknown>): Record<string, unknown> {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const name = ref.replace('#/components/schemas/', '');
  return document.components.schemas[name] as Record<string, unknown>;
}

/** Fails unless the answer to `request` is one `template`'s operation declares, as declared. */
async function conforms(template: string, request: string, headers?: Record<string, string>) {
  const answer = await local.get(request, headers);
  const declared = document.paths[template]?.get.responses[String(answer.status)];
  expect(declared, `${request} answered ${answer.status}, not declared for ${template}`).toBeDefined();
  const response = declared as ResponseObject;
  if (answer.text === '') {
    expect(response.description).toContain('no body');
  } else {
    expect(answer.headers.get('content-type')).toContain('application/json');
    const schema = response.content?.['application/json']?.schema;
    expect(schema, `${template} ${answer.status} declares no JSON body`).toBeDefined();
    const validate = ajv.compile(resolve(schema as Record<string, unknown>));
    expect(validate(answer.body), JSON.stringify(validate.errors)).toBe(true);
  }
  for (const [name, header] of Object.entries(response.headers ?? {})) {
    const value = answer.headers.get(name);
    if (value === null) continue;
    const validate = ajv.compile(header.schema);
    expect(validate(header.schema.type === 'integer' ? Number(value) : value), `${name}: ${value}`).toBe(
      true,
    );
  }
  return answer;
}

describe('the local stack answers as docs/openapi.json declares', () => {
  it.each([
    ['/instruments', '/instruments?search=aa&limit=3'],
    ['/instruments/{symbol}', '/instruments/ES1%21'],
    ['/market-status', '/market-status'],
    ['/prices/latest', '/prices/latest?symbols=AAPL,ES1!'],
    ['/candles/{symbol}', '/candles/AAPL?interval=60m'],
    ['/states/{symbol}', '/states/AAPL'],
    ['/states/{symbol}', '/states/MSFT'],
    ['/setups/current', '/setups/current?timeframes=D,W'],
    ['/alerts/in-force', '/alerts/in-force?window_minutes=10080'],
    ['/alerts/simultaneous-breaks', '/alerts/simultaneous-breaks?since_id=1'],
  ])('%s: 200 for %s', async (template, request) => {
    expect((await conforms(template, request)).status).toBe(200);
  });

  it('declares X-Next-Since-Id as the alert routes send it', async () => {
    const answer = await conforms('/alerts/in-force', '/alerts/in-force?symbols=AAPL&window_minutes=10080');
    expect(answer.headers.get('x-next-since-id')).not.toBeNull();
  });

  it.each([
    ['/instruments', '/instruments?limit=ten', 400],
    ['/prices/latest', '/prices/latest', 400],
    ['/alerts/in-force', '/alerts/in-force?direction=up', 400],
    ['/setups/current', '/setups/current?timeframes=2H', 400],
    ['/instruments/{symbol}', '/instruments/ZZZZ', 404],
    ['/candles/{symbol}', '/candles/ZZZZ', 404],
    ['/candles/{symbol}', '/candles/AAPL?interval=2d', 404],
    ['/candles/{symbol}', '/candles/AAPL?start=yesterday', 400],
  ])('%s: errors as declared for %s', async (template, request, status) => {
    expect((await conforms(template, request)).status).toBe(status);
  });

  it('declares the refusals of the gateway: 401 without a key, 403 without the scope', async () => {
    expect((await conforms('/market-status', '/market-status', {})).status).toBe(401);
    expect(
      (await conforms('/prices/latest', '/prices/latest?symbols=AAPL', { 'X-API-Key': metadataOnlyKey }))
        .status,
    ).toBe(403);
  });

  it('declares 429 with Retry-After', async () => {
    let status = 0;
    for (let index = 0; index <= BURST && status !== 429; index++) {
      status = (await conforms('/instruments', '/instruments?limit=1', { 'X-API-Key': metadataOnlyKey }))
        .status;
    }
    expect(status).toBe(429);
  });
});
