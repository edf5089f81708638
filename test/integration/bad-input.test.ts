import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REST_ROUTES } from '#contracts/routes';
import { startTestStack, type TestStack } from '../support/local-stack.ts';
import { PROTOTYPE_NAMES } from '../support/prototype-names.ts';
import { TestWebSocketClient } from '../support/ws-client.ts';

/**
 * The standard: bad input always gets the partner error envelope (docs/partner-guide.md#errors) or a
 * documented 4xx, never a 5xx, a hang or a stack trace. Random query strings and path symbols on every route,
 * over real HTTP.
 */
let local: TestStack;

beforeAll(async () => {
  local = await startTestStack({ clock: { start: new Date('2024-11-26T15:00:00Z'), speed: 1 } });
});
afterAll(async () => {
  await local.stop();
});

const PARAMETERS = [
  'symbols',
  'search',
  'limit',
  'interval',
  'start',
  'end',
  'timeframes',
  'window_minutes',
  'since_id',
  'timeframe',
  'direction',
  'cc',
  'threshold',
];
/** Numbers over the whole range a client can write: huge, tiny, negative, fractional, exponents. */
const numberText = fc.oneof(
  fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
  fc.double().map(String),
  fc.integer().map(String),
  fc.constantFrom('9007199254740991', '9007199254740992', '-0', '1e21', '0x10', '1_000', '.5', '5.'),
);
/** Dates and instants over every year a client can write, valid or not, with and without offsets. */
const dateText = fc.oneof(
  fc
    .date({
      min: new Date('0001-01-01T00:00:00Z'),
      max: new Date('9999-12-31T23:59:59Z'),
      noInvalidDate: true,
    })
    .map((date) => date.toISOString()),
  fc
    .tuple(
      fc.integer({ min: 0, max: 99_999 }),
      fc.integer({ min: 0, max: 13 }),
      fc.integer({ min: 0, max: 32 }),
    )
    .map(
      ([y, m, d]) =>
        `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`,
    ),
  fc.constantFrom(
    '2024-11-26T15:00:00+14:00',
    '2024-11-26T15:00:00-12:00',
    '2024-11-26T15:00',
    '+002024-11-26',
  ),
);
const value = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  numberText,
  dateText,
  fc.constantFrom(
    '',
    ' ',
    '-1',
    '0',
    '1e309',
    'NaN',
    '2024-02-30',
    ',,,',
    'ES1!',
    '%',
    '%ZZ',
    '\u0000',
    '9'.repeat(400),
  ),
  fc
    .array(fc.constantFrom('AAPL', 'es1!', '', ' x ', 'D', '4h', 'Q'), { maxLength: 300 })
    .map((list) => list.join(',')),
);
const query = fc.dictionary(fc.constantFrom(...PARAMETERS, ...PROTOTYPE_NAMES), value, { maxKeys: 5 });
/** Extra headers, named after the prototype's properties or anything a header may be named. */
const extraHeaders = fc.dictionary(
  fc.oneof(
    fc.constantFrom(...PROTOTYPE_NAMES),
    fc
      .stringMatching(/^[a-z][a-z0-9-]{0,20}$/)
      // Names fetch sets itself, or that would change what is asked (the key, the framing).
      .filter(
        (name) =>
          !/^(authorization|x-api-key|host|connection|keep-alive|upgrade|expect|te|trailer|transfer-encoding|content-length|proxy-.*)$/.test(
            name,
          ),
      ),
  ),
  fc.stringMatching(/^[ -~]{0,40}$/),
  { maxKeys: 3 },
);
const symbol = fc.oneof(
  fc.string({ minLength: 1, maxLength: 40 }),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }),
  fc.constantFrom('ES1!', 'aapl', '%2F', '..', 'X'.repeat(100)),
);

function pathOf(template: string, rawSymbol: string): string {
  return template.replace('{symbol}', encodeURIComponent(rawSymbol));
}

// Before the property tests below, which spend the demo key's burst.
describe('numbers beyond what the service represents', () => {
  it.each(['/alerts/in-force', '/alerts/simultaneous-breaks'])(
    '%s answers a since_id beyond 2^53 - 1 with 400 invalid_parameter',
    async (path) => {
      for (const sinceId of ['9007199254740993', '9'.repeat(400)]) {
        const response = await local.request(`/api/market/v1${path}?since_id=${sinceId}`, {
          headers: { 'X-API-Key': local.stack.demoKey },
        });
        expect(response.status).toBe(400);
        expect(response.body.error.code).toBe('invalid_parameter');
      }
    },
  );
});

describe('a candle range that ends before it starts', () => {
  it('is 400 invalid_parameter, and a range within one second is an empty list', async () => {
    const headers = { 'X-API-Key': local.stack.demoKey };
    const reversed = await local.request('/api/market/v1/candles/SPY?start=2025-01-02&end=2024-01-01', {
      headers,
    });
    expect(reversed.status).toBe(400);
    expect(reversed.body.error).toEqual({
      code: 'invalid_parameter',
      message: 'invalid parameter: start must not be after end',
    });
    const within = await local.request(
      '/api/market/v1/candles/SPY?interval=1m&start=2024-11-26T15:00:00.100Z&end=2024-11-26T15:00:00.900Z',
      { headers },
    );
    expect(within.status).toBe(200);
    expect(within.body.bars).toEqual([]);
  });
});

describe('names that are Object.prototype properties', () => {
  it.each(REST_ROUTES.map((route) => [route.path] as const))(
    '%s answers a query parameter or header named after one with 2xx or an enveloped 4xx',
    async (path) => {
      for (const name of PROTOTYPE_NAMES) {
        const response = await local.request(
          `/api/market/v1${pathOf(path, 'SPY')}?${encodeURIComponent(name)}=1&symbols=SPY`,
          { headers: { 'X-API-Key': local.stack.demoKey, [name]: 'x' } },
        );
        expect(response.status, `${path} with ${name}`).toBeLessThan(500);
      }
    },
  );

  it('answers or closes a WebSocket upgrade with such a header, never leaving it open', async () => {
    for (const name of PROTOTYPE_NAMES) {
      const client = TestWebSocketClient.connect(`${local.stack.wsUrl}?${name}=1`, {
        'X-API-Key': local.stack.demoKey,
        [name]: 'x',
      });
      client.socket.on('error', () => undefined);
      await client.opened().catch(() => undefined);
      client.socket.close();
      expect((await client.closed).code, name).toBeGreaterThan(0);
    }
  });
});

describe('request headers over the limit', () => {
  it('answer 431 request_headers_too_large in the error envelope, not a bare status line', async () => {
    const response = await local.request('/api/market/v1/market-status', {
      headers: { 'X-API-Key': local.stack.demoKey, 'X-Padding': 'x'.repeat(32 * 1024) },
    });
    expect(response.status).toBe(431);
    expect(response.body).toEqual({
      error: { code: 'request_headers_too_large', message: 'request headers too large' },
    });
  });
});

describe('bad input over HTTP', () => {
  it.each(REST_ROUTES.map((route) => [route.path, route] as const))(
    '%s answers random parameters with 2xx or an enveloped 4xx, never a 5xx',
    async (_path, route) => {
      await fc.assert(
        fc.asyncProperty(query, symbol, extraHeaders, async (parameters, rawSymbol, headers) => {
          const search = new URLSearchParams(Object.entries(parameters)).toString();
          const response = await local.request(
            `/api/market/v1${pathOf(route.path, rawSymbol)}${search ? `?${search}` : ''}`,
            { headers: { ...headers, 'X-API-Key': local.stack.demoKey } },
          );
          expect(response.status).toBeLessThan(500);
          if (response.status >= 400) {
            const bodiless = response.status === 404 && response.text === '';
            if (!bodiless) {
              expect(Object.keys(response.body)).toEqual(['error']);
              expect(typeof response.body.error.code).toBe('string');
              expect(response.text).not.toMatch(/\n\s+at /);
            }
          }
        }),
        { numRuns: 60 },
      );
    },
    60_000,
  );
});
