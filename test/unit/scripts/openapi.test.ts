import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { REST_ROUTES } from '#contracts/routes';
import { PROJECT_ROOT } from '#lib/project-root';
import { openApiDocument } from '../../../scripts/lib/openapi.ts';

interface Parameter {
  name: string;
  required: boolean;
  style?: string;
  explode?: boolean;
  description?: string;
  schema: Record<string, unknown>;
}
interface MediaType {
  schema: unknown;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}
interface Operation {
  operationId: string;
  tags: string[];
  parameters: Parameter[];
  responses: Record<string, { description: string; content?: unknown; headers?: Record<string, unknown> }>;
}
const document = (await openApiDocument()) as {
  info: { contact?: unknown; license?: unknown };
  servers: { url: string; variables?: Record<string, { default: string }> }[];
  components: { schemas: Record<string, unknown> };
  tags: { name: string }[];
  paths: Record<string, { get: Operation }>;
};
const get = (path: string) => document.paths[path]?.get as Operation;
const parameter = (path: string, name: string) => get(path).parameters.find((entry) => entry.name === name);

describe('the OpenAPI document', () => {
  it('is the committed docs/openapi.json (run npm run openapi after changing a route or schema)', () => {
    const committed = JSON.parse(readFileSync(join(PROJECT_ROOT, 'docs', 'openapi.json'), 'utf8'));
    expect(committed).toEqual(document);
  });

  it.each(REST_ROUTES.map((route) => [route.path, route] as const))(
    'describes GET %s with its operation id and a JSON schema of its 200 response',
    (path, route) => {
      const operation = document.paths[path]?.get;
      expect(operation?.operationId).toBe(route.id);
      expect(JSON.stringify(operation?.responses[200]?.content)).toContain('"type":"object"');
    },
  );

  // The fields of a candle response: docs/partner-guide.md#candles
  it('takes the response fields from the schemas: a candle response lists the documented fields', () => {
    const schema = JSON.stringify(document.paths['/candles/{symbol}']?.get.responses[200]);
    for (const field of ['symbol', 'interval', 'bars', 'partial_bar_included', 'open', 'volume']) {
      expect(schema).toContain(`"${field}"`);
    }
  });

  // docs/partner-guide.md#limits-and-throttling
  it('declares limit, window_minutes and since_id as any number, saying how each is clamped', () => {
    expect(parameter('/instruments', 'limit')?.schema).toEqual({ type: 'number', default: 50 });
    expect(parameter('/instruments', 'limit')?.description).toContain('a value outside 1..200 is clamped');
    expect(parameter('/candles/{symbol}', 'limit')?.description).toContain('1..5000');
    expect(parameter('/alerts/in-force', 'window_minutes')?.schema).toEqual({
      type: 'number',
      default: 1440,
    });
    expect(parameter('/alerts/simultaneous-breaks', 'since_id')?.schema).toMatchObject({
      anyOf: [{ type: 'number', minimum: 0, maximum: Number.MAX_SAFE_INTEGER }, { type: 'string' }],
    });
  });

  it('declares enumerated parameters case-insensitive: 1D, d and LATEST are valid', () => {
    const matches = (path: string, name: string, value: string) => {
      const schema = parameter(path, name)?.schema as { pattern?: string; anyOf?: { pattern?: string }[] };
      const pattern = schema.pattern ?? schema.anyOf?.find((branch) => branch.pattern)?.pattern ?? '';
      return new RegExp(pattern).test(value);
    };
    expect(matches('/candles/{symbol}', 'interval', '1D')).toBe(true);
    expect(matches('/candles/{symbol}', 'interval', '2d')).toBe(false);
    expect(matches('/alerts/in-force', 'timeframe', 'd')).toBe(true);
    expect(matches('/alerts/in-force', 'direction', 'BULLISH')).toBe(true);
    expect(matches('/alerts/in-force', 'since_id', 'Latest')).toBe(true);
  });

  it('requires symbols on /prices/latest only, as a list (repeated or comma-separated)', () => {
    expect(parameter('/prices/latest', 'symbols')).toMatchObject({
      required: true,
      style: 'form',
      explode: true,
      schema: { type: 'array', minItems: 1 },
    });
    expect(parameter('/instruments', 'symbols')?.required).toBe(false);
  });

  it('lists the enumerated values of interval, direction and timeframes in their descriptions', () => {
    expect(parameter('/candles/{symbol}', 'interval')?.description).toContain('1mo');
    expect(parameter('/alerts/in-force', 'direction')?.description).toContain('all, bullish, bearish');
    expect(parameter('/alerts/in-force', 'direction')?.schema).toMatchObject({ default: 'all' });
    expect(parameter('/setups/current', 'timeframes')?.schema).toMatchObject({ type: 'array' });
  });

  it('declares the unknown-interval 404 of /candles as bodiless beside the unknown_symbol envelope', () => {
    const notFound = get('/candles/{symbol}').responses[404];
    expect(notFound?.description).toContain('unknown_interval: no body');
    expect(notFound?.description).toContain('unknown_symbol');
  });

  it('declares only the errors a route can give', () => {
    const statuses = (path: string) => Object.keys(get(path).responses).join(' ');
    expect(statuses('/market-status')).toBe('200 401 403 413 429 431 500');
    expect(statuses('/prices/latest')).toBe('200 400 401 403 413 429 431 500');
    expect(get('/prices/latest').responses[400]?.description).toContain('missing_symbols');
    expect(get('/prices/latest').responses[400]?.description).not.toContain('invalid_parameter');
    expect(statuses('/states/{symbol}')).toBe('200 401 403 404 413 429 431 500');
    expect(get('/market-status').responses[429]?.headers).toHaveProperty('Retry-After');
  });

  it('declares X-Next-Since-Id on the 200 of the alert routes', () => {
    expect(get('/alerts/in-force').responses[200]?.headers).toHaveProperty('X-Next-Since-Id');
    expect(get('/alerts/simultaneous-breaks').responses[200]?.headers).toHaveProperty('X-Next-Since-Id');
    expect(get('/market-status').responses[200]?.headers).toBeUndefined();
  });

  it('declares the Link header of the paged listings', () => {
    expect(get('/instruments').responses[200]?.headers).toHaveProperty('Link');
    expect(get('/setups/current').responses[200]?.headers).toHaveProperty('Link');
  });

  it('names the local stack among its servers, beside the AWS one', () => {
    const urls = document.servers.map((server) =>
      server.url.replace(/\{(\w+)\}/g, (_, name: string) => server.variables?.[name]?.default ?? ''),
    );
    expect(urls).toEqual(['https://api.example.com/api/market/v1', 'http://127.0.0.1:3000/api/market/v1']);
  });

  it('declares headers too large on every route: 413 on AWS, 431 request_headers_too_large locally', () => {
    for (const [path] of Object.entries(document.paths)) {
      expect(get(path).responses[413]?.description).toContain('request_too_large');
      expect(get(path).responses[431]?.description).toContain('request_headers_too_large');
      expect(get(path).responses[431]?.description).not.toContain('bad_request');
    }
  });

  it('has an example of every answer with a body, each valid against its schema', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ $id: 'doc', components: document.components });
    let checked = 0;
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [status, response] of Object.entries(item.get.responses)) {
        const media = (response.content as Record<string, MediaType> | undefined)?.['application/json'];
        if (!media) continue;
        const examples =
          media.example !== undefined
            ? [media.example]
            : Object.values(media.examples ?? {}).map(({ value }) => value);
        expect(examples.length, `${path} ${status} has an example`).toBeGreaterThan(0);
        const schema = JSON.parse(
          JSON.stringify(media.schema).replaceAll('"#/components/', '"doc#/components/'),
        ) as object;
        const validate = ajv.compile(schema);
        for (const example of examples) {
          expect(validate(example), `${path} ${status}: ${ajv.errorsText(validate.errors)}`).toBe(true);
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThan(50);
  });

  it('has tags on every operation, a contact and a license', () => {
    const tags = new Set(document.tags.map((tag) => tag.name));
    for (const route of REST_ROUTES) expect(tags.has(get(route.path).tags[0] ?? '')).toBe(true);
    expect(document.info.contact).toBeDefined();
    expect(document.info.license).toBeDefined();
  });
});
