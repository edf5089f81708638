import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REST_BASE_PATH, REST_ROUTES } from '#contracts/routes';
import { PROJECT_ROOT } from '#lib/project-root';
import { startStratWeekStack, type TestStack } from '../support/local-stack.ts';
import { PROTOTYPE_NAMES } from '../support/prototype-names.ts';

/**
 * A fuzz of the REST API over real HTTP (docs/partner-guide.md#errors: bad input never produces a 5xx): 10,000
 * requests generated from the OpenAPI document's parameters (docs/openapi.json) on every route, valid values
 * and their edges (bounds and one past them, negative and huge ids, dates before 1970 and ranges that end
 * before they start), junk, names that are Object.prototype properties as parameters and headers, key
 * variants and other methods; none may answer 5xx. Seeded: a failure names the requests to repeat.
 */
const REQUESTS = 10_000;
const CONCURRENCY = 4;
const SEED = 22;

interface Parameter {
  readonly name: string;
  readonly in: 'path' | 'query';
  readonly schema: {
    readonly type?: string;
    readonly enum?: readonly unknown[];
    /** The accepted forms as a regular expression (enumerations in any case). */
    readonly pattern?: string;
    readonly minimum?: number;
    readonly maximum?: number;
    readonly items?: { readonly enum?: readonly unknown[]; readonly pattern?: string };
    /** A number or a keyword (`since_id`: an id or `latest`). */
    readonly anyOf?: readonly Parameter['schema'][];
  };
}

const openapi = JSON.parse(readFileSync(join(PROJECT_ROOT, 'docs/openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, { parameters?: Parameter[] }>>;
};
const operations = Object.entries(openapi.paths).flatMap(([path, item]) =>
  Object.values(item).map((operation) => ({ path, parameters: operation.parameters ?? [] })),
);

const SYMBOLS = ['AAPL', 'SPY', 'ES1!', 'NQ1!', 'RTY1!', 'YM1!', 'aapl', 'NOPE', 'ZZZZZZ'];
const junk = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom('', ' ', 'NaN', 'Infinity', '1e309', '0x10', '%', '\u0000', ',,', '9'.repeat(40)),
);
const dateText = fc.oneof(
  fc
    .date({
      min: new Date('0001-01-01T00:00:00Z'),
      max: new Date('9999-12-31T23:59:59Z'),
      noInvalidDate: true,
    })
    .chain((date) => fc.constantFrom(date.toISOString(), date.toISOString().slice(0, 10))),
  fc.constantFrom(
    '1969-12-31',
    '1970-01-01',
    '1969-12-31T23:59:59.999Z',
    '2024-11-22',
    '2024-11-22T15:00:00Z',
  ),
);
const integerEdges = (schema: Parameter['schema']) => {
  const edges = ['-1', '-0', '0', '9007199254740991', '9007199254740992', '-9007199254740993', '1e3', '2.5'];
  if (schema.minimum !== undefined) edges.push(String(schema.minimum), String(schema.minimum - 1));
  if (schema.maximum !== undefined) edges.push(String(schema.maximum), String(schema.maximum + 1));
  return fc.constantFrom(...edges);
};

const isNumeric = (schema: Parameter['schema']) => schema.type === 'integer' || schema.type === 'number';

/** A value of a numeric schema: whole numbers in its bounds, and fractional ones where it takes any number. */
const numberValue = (schema: Parameter['schema']) => {
  const whole = fc
    .integer({ min: schema.minimum ?? -1_000_000, max: Math.min(schema.maximum ?? 1_000_000, 1e12) })
    .map(String);
  if (schema.type === 'integer') return whole;
  const fractional = fc
    .double({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000, noNaN: true })
    .map(String);
  return fc.oneof({ weight: 3, arbitrary: whole }, { weight: 1, arbitrary: fractional });
};

/** A value for one parameter: mostly of its documented form, else at its edges, else junk. */
function parameterValue(parameter: Parameter): fc.Arbitrary<string> {
  const numeric = parameter.schema.anyOf?.find(isNumeric);
  if (numeric !== undefined) {
    // `since_id`: an id, or the keyword in any case.
    return fc.oneof(
      { weight: 6, arbitrary: parameterValue({ ...parameter, schema: numeric }) },
      { weight: 1, arbitrary: fc.constantFrom('latest', 'LATEST', 'Latest') },
    );
  }
  const { schema } = parameter;
  if (parameter.name === 'symbol') return fc.oneof(fc.constantFrom(...SYMBOLS), junk);
  if (parameter.name === 'symbols') {
    return fc.oneof(
      fc.array(fc.constantFrom(...SYMBOLS, ''), { maxLength: 8 }).map((list) => list.join(',')),
      junk,
    );
  }
  if (parameter.name === 'start' || parameter.name === 'end') return fc.oneof(dateText, junk);
  const pattern = schema.pattern ?? schema.items?.pattern;
  const valid = schema.enum
    ? fc.constantFrom(...schema.enum.map(String))
    : pattern !== undefined
      ? fc.stringMatching(new RegExp(pattern))
      : schema.items?.enum
        ? fc.subarray(schema.items.enum.map(String)).map((list) => list.join(','))
        : isNumeric(schema)
          ? numberValue(schema)
          : fc.constantFrom('aa', 'S', 'ES');
  const edges = isNumeric(schema) ? integerEdges(schema) : fc.constantFrom('', 'ALL', 'w', 'x'.repeat(300));
  return fc.oneof(
    { weight: 4, arbitrary: valid },
    { weight: 2, arbitrary: edges },
    { weight: 1, arbitrary: junk },
  );
}

const keyOf = (demoKey: string) =>
  fc.oneof(
    { weight: 12, arbitrary: fc.constant({ 'X-API-Key': demoKey }) },
    { weight: 1, arbitrary: fc.constant({ Authorization: `Bearer ${demoKey}` }) },
    { weight: 1, arbitrary: fc.constant({}) },
    { weight: 1, arbitrary: junk.map((key) => ({ 'X-API-Key': key.replace(/[^ -~]/g, '') })) },
  );

const extraHeaders = fc.dictionary(
  fc.oneof(
    fc.constantFrom(...PROTOTYPE_NAMES),
    fc.constantFrom('x-forwarded-for', 'accept', 'origin', 'x-a'),
  ),
  fc.stringMatching(/^[ -~]{0,30}$/),
  { maxKeys: 3 },
);

interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
}

function requestsFor(demoKey: string): fc.Arbitrary<FuzzRequest> {
  return fc.constantFrom(...operations).chain((operation) =>
    fc
      .record({
        pathValues: fc.tuple(...operation.parameters.filter((p) => p.in === 'path').map(parameterValue)),
        query: fc.tuple(
          ...operation.parameters
            .filter((p) => p.in === 'query')
            .map((p) =>
              (p.name === 'cursor'
                ? // A cursor is valid only as a Link header gave it: mostly absent, sometimes junk.
                  fc.oneof(
                    { weight: 7, arbitrary: fc.constant(undefined) },
                    { weight: 1, arbitrary: parameterValue(p) },
                  )
                : fc.option(parameterValue(p), { nil: undefined, freq: 2 })
              ).map((value) => [p.name, value] as const),
            ),
        ),
        extraQuery: fc.array(fc.tuple(fc.constantFrom(...PROTOTYPE_NAMES, 'x', ''), junk), { maxLength: 2 }),
        key: keyOf(demoKey),
        headers: extraHeaders,
        method: fc.oneof(
          { weight: 20, arbitrary: fc.constant('GET') },
          { weight: 1, arbitrary: fc.constantFrom('HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH') },
        ),
      })
      .map(({ pathValues, query, extraQuery, key, headers, method }) => {
        let index = 0;
        const path = operation.path.replace(/\{\w+\}/g, () => encodeURIComponent(pathValues[index++] ?? ''));
        const search = new URLSearchParams();
        for (const [name, value] of [...query, ...extraQuery])
          if (value !== undefined) search.append(name, value);
        const text = search.toString();
        return { method, path: `${path}${text ? `?${text}` : ''}`, headers: { ...headers, ...key } };
      }),
  );
}

let local: TestStack;
beforeAll(async () => {
  // Throttling is not under test, and the authorizer's cache is on, as on AWS (keys are read once a while).
  local = await startStratWeekStack({
    throttle: { rateLimit: 1_000_000, burstLimit: 1_000_000 },
    authCacheTtlSeconds: 60,
  });
}, 180_000);
afterAll(() => local?.stop());

describe('a fuzz of every route', () => {
  it('covers every route of the route table', () => {
    expect(new Set(operations.map(({ path }) => path))).toEqual(new Set(REST_ROUTES.map(({ path }) => path)));
  });

  it(`answers ${REQUESTS} generated requests without a 5xx`, async () => {
    const requests = fc.sample(requestsFor(local.stack.demoKey), { numRuns: REQUESTS, seed: SEED });
    const base = local.stack.restUrl.slice(0, -REST_BASE_PATH.length);
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let next = 0;
    const worker = async () => {
      while (next < requests.length) {
        const request = requests[next++] as FuzzRequest;
        const response = await fetch(`${base}${REST_BASE_PATH}${request.path}`, {
          method: request.method,
          headers: request.headers,
        });
        const text = await response.text();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        if (response.status >= 500 || /\n\s+at /.test(text)) {
          failures.push(
            `${response.status} ${request.method} ${request.path} ${JSON.stringify(request.headers)}: ${text}`,
          );
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    expect(failures.slice(0, 10)).toEqual([]);
    expect([...statuses.values()].reduce((a, b) => a + b, 0)).toBe(REQUESTS);
    // The fuzz reaches the handlers, not only the authorizer: most requests are answered 200.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(REQUESTS / 3);
  }, 300_000);
});
