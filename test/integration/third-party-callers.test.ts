import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNIVERSE_CSV } from '#scripts/lib/project';
import { parseUniverseCsv } from '#scripts/lib/universe';
import { startStratWeekStack, type TestStack } from '../support/local-stack.ts';

/**
 * The API as third-party tools call it. A client generated from docs/openapi.json with openapi-typescript and
 * openapi-fetch writes arrays as OpenAPI's default `style: form, explode: true` (`symbols=AAPL&symbols=MSFT`),
 * every value through encodeURIComponent; `openapiFetchUrl` writes requests exactly so (openapi-fetch itself is
 * not installed in this repository, so its default query serializer is restated here).
 */
let local: TestStack;
const universe = parseUniverseCsv(readFileSync(UNIVERSE_CSV, 'utf8'));

beforeAll(async () => {
  local = await startStratWeekStack();
}, 60_000);
afterAll(async () => {
  await local.stop();
});

type QueryValue = string | number | readonly string[] | undefined;

/** openapi-fetch's default query serializer: arrays exploded, every value encodeURIComponent'd. */
function openapiFetchUrl(path: string, query: Record<string, QueryValue> = {}): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [String(value)];
    for (const item of values) parts.push(`${name}=${encodeURIComponent(item)}`);
  }
  return parts.length ? `${path}?${parts.join('&')}` : path;
}

/** The `rel="next"` target of a Link header, resolved against the request's URL (RFC 8288). */
function nextLink(link: string | null, requestUrl: string): URL | undefined {
  if (link === null) return undefined;
  const match = /<([^>]*)>\s*;\s*rel="next"/.exec(link);
  return match ? new URL(match[1] as string, requestUrl) : undefined;
}

async function getJson(url: string) {
  const response = await fetch(url, { headers: { 'X-API-Key': local.stack.demoKey } });
  expect(response.status).toBe(200);
  return {
    body: (await response.json()) as { items: Record<string, string>[] },
    link: response.headers.get('Link'),
  };
}

describe('repeated list parameters, as generated clients send them', () => {
  it('/prices/latest answers every symbol of symbols=ES1!&symbols=AAPL&symbols=NQ1!', async () => {
    const { body } = await getJson(
      `${local.stack.restUrl}${openapiFetchUrl('/prices/latest', { symbols: ['ES1!', 'AAPL', 'NQ1!'] })}`,
    );
    expect(body.items.map((item) => item.symbol)).toEqual(['ES1!', 'AAPL', 'NQ1!']);
  });

  it('combines the repeated form with the comma form', async () => {
    const { body } = await getJson(`${local.stack.restUrl}/instruments?symbols=MSFT,NVDA&symbols=aapl`);
    expect(body.items.map((item) => item.symbol)).toEqual(['AAPL', 'MSFT', 'NVDA']);
  });

  it('reads repeated timeframes on /setups/current', async () => {
    const { body } = await getJson(
      `${local.stack.restUrl}${openapiFetchUrl('/setups/current', { timeframes: ['D', 'w', 'm', '15', '60'], limit: 1000 })}`,
    );
    const timeframes = new Set(body.items.map((item) => item.timeframe));
    expect(timeframes.size).toBeGreaterThan(1);
    for (const timeframe of timeframes) expect(['D', 'W', 'M', '15', '60']).toContain(timeframe);
  });
});

describe('paging by the Link header', () => {
  it('a client following Link pages the whole universe exactly once', async () => {
    const seen: string[] = [];
    let url: string | undefined = `${local.stack.restUrl}/instruments?limit=200`;
    let pages = 0;
    while (url) {
      const page = await getJson(url);
      pages += 1;
      seen.push(...page.body.items.map((item) => item.symbol as string));
      url = nextLink(page.link, url)?.href;
    }
    expect(pages).toBe(Math.ceil(universe.length / 200));
    expect(seen).toEqual(universe.map(({ symbol }) => symbol).sort());
  });

  it('an openapi-fetch caller passing the documented cursor parameter gets every symbol', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const requestUrl = `${local.stack.restUrl}${openapiFetchUrl('/instruments', { limit: 200, cursor })}`;
      const page = await getJson(requestUrl);
      seen.push(...page.body.items.map((item) => item.symbol as string));
      cursor = nextLink(page.link, requestUrl)?.searchParams.get('cursor') ?? undefined;
    } while (cursor);
    expect(seen).toHaveLength(universe.length);
    expect(new Set(seen)).toEqual(new Set(universe.map(({ symbol }) => symbol)));
  });

  it('/setups/current pages every row once, with the same rows as one large page', async () => {
    const whole = await getJson(`${local.stack.restUrl}/setups/current?limit=1000`);
    expect(whole.link).toBeNull();
    const rows: string[] = [];
    let url: string | undefined = `${local.stack.restUrl}/setups/current?limit=7`;
    while (url) {
      const page = await getJson(url);
      expect(page.body.items.length).toBeLessThanOrEqual(7);
      rows.push(...page.body.items.map((item) => `${item.symbol}/${item.timeframe}`));
      url = nextLink(page.link, url)?.href;
    }
    expect(rows.length).toBeGreaterThan(7);
    expect(rows).toEqual(whole.body.items.map((item) => `${item.symbol}/${item.timeframe}`));
  });
});

interface OpenApiParameter {
  name: string;
  in: string;
  allowEmptyValue?: boolean;
  schema: Record<string, unknown>;
}

const openapi = JSON.parse(readFileSync('docs/openapi.json', 'utf8')) as {
  paths: Record<string, { get: { parameters: OpenApiParameter[] } }>;
};

/** A path's OpenAPI template: `/candles/AAPL` is `/candles/{symbol}`. */
function templateOf(path: string): string {
  const template = Object.keys(openapi.paths).find((candidate) =>
    new RegExp(`^${candidate.replace(/\{\w+\}/g, '[^/]+')}$`).test(path),
  );
  if (!template) throw new Error(`no OpenAPI path for ${path}`);
  return template;
}

/**
 * Validates a request's query as a validating proxy (Prism) does: each parameter against its schema, an
 * array from the parameter's repeated values (style form, explode true), a string coerced to a number where
 * the schema's type is number. Returns the problems found.
 */
function requestProblems(url: URL): string[] {
  const ajv = new Ajv2020({ strict: false });
  const problems: string[] = [];
  const parameters =
    openapi.paths[templateOf(url.pathname.replace(/^.*\/api\/market\/v1/, ''))]?.get.parameters ?? [];
  for (const name of new Set(url.searchParams.keys())) {
    const parameter = parameters.find((entry) => entry.in === 'query' && entry.name === name);
    if (!parameter) {
      problems.push(`${name} is not declared`);
      continue;
    }
    const values = url.searchParams.getAll(name);
    // An empty value where the parameter allows one (`allowEmptyValue`) is as if it were absent.
    if (parameter.allowEmptyValue === true && values.every((value) => value === '')) continue;
    const validate = ajv.compile(parameter.schema);
    const coerce = (value: string) =>
      value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value;
    const candidates =
      parameter.schema.type === 'array'
        ? [values]
        : [values.at(-1) as string, coerce(values.at(-1) as string)];
    if (!candidates.some((candidate) => validate(candidate))) {
      problems.push(`${name}=${values.join('&')}: ${ajv.errorsText(validate.errors)}`);
    }
  }
  return problems;
}

describe('every request the service serves is valid against the OpenAPI parameters (as Prism checks)', () => {
  it.each([
    '/instruments?limit=0',
    '/instruments?limit=100000&search=aa',
    '/instruments?limit=2.9&symbols=AAPL&symbols=msft',
    '/prices/latest?symbols=aapl,ES1!',
    '/candles/AAPL?interval=1D&limit=3.5',
    '/candles/AAPL?interval=1Mo&start=2024-11-01&end=2024-11-22T16:00:00Z&limit=-4',
    '/setups/current?timeframes=d&timeframes=W,m&limit=5000',
    '/alerts/in-force?timeframe=d&direction=BULLISH&cc=2u&window_minutes=99999&limit=0.5&since_id=1.7',
    '/alerts/in-force?since_id=LATEST',
    '/alerts/simultaneous-breaks?threshold=ALL&window_minutes=0&since_id=0',
    '/alerts/simultaneous-breaks?threshold=3&direction=Bearish&timeframe=4h',
    '/instruments?limit=&search=',
    '/alerts/in-force?timeframe=&limit=&since_id=',
  ])('%s is served and declared valid', async (request) => {
    const url = new URL(`${local.stack.restUrl}${request}`);
    const response = await fetch(url, { headers: { 'X-API-Key': local.stack.demoKey } });
    expect(response.status).toBe(200);
    expect(requestProblems(url)).toEqual([]);
  });

  it('declares invalid what the service refuses', () => {
    const url = (request: string) => new URL(`${local.stack.restUrl}${request}`);
    expect(requestProblems(url('/instruments?limit=ten'))).toHaveLength(1);
    expect(requestProblems(url('/alerts/in-force?direction=up'))).toHaveLength(1);
    expect(requestProblems(url('/candles/AAPL?interval=2d'))).toHaveLength(1);
  });
});
