import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CLIENT_VERSION,
  createClient,
  DEFAULT_TIMEOUT_MS,
  MarketDataError,
  type MarketDataStream,
} from '../../../../clients/typescript/src/index.ts';
import { json, scriptedFetch } from './fake-fetch.ts';

const BASE = 'http://service.test/api/market/v1';

describe('the client identifies itself and bounds each request', () => {
  it('names the library and its version in User-Agent (outside browsers)', async () => {
    const fake = scriptedFetch([json(200, { items: [] })]);
    await createClient({ baseUrl: BASE, apiKey: 'k', fetch: fake.fetch }).listInstruments();
    const { version } = JSON.parse(readFileSync('clients/typescript/package.json', 'utf8')) as {
      version: string;
    };
    expect(CLIENT_VERSION).toBe(version);
    expect(fake.calls[0]?.headers['user-agent']).toBe(`market-data-alerts-client/${version}`);
  });

  it('gives up on a request that does not answer within timeoutMs, as a retryable timeout', async () => {
    let attempts = 0;
    const hanging = ((_input: unknown, init?: RequestInit) => {
      attempts++;
      return new Promise<Response>((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason));
      });
    }) as typeof fetch;
    const client = createClient({
      baseUrl: BASE,
      apiKey: 'k',
      fetch: hanging,
      timeoutMs: 20,
      retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 1 },
    });
    const error = await client.getMarketStatus().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MarketDataError);
    expect(error).toMatchObject({ status: 0, code: 'timeout' });
    expect((error as MarketDataError).retryable).toBe(true);
    expect(attempts).toBe(2);
    expect(DEFAULT_TIMEOUT_MS).toBe(30_000);
  });

  it("still lets the caller's own signal cancel, without retrying", async () => {
    const controller = new AbortController();
    const hanging = ((_input: unknown, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason));
      })) as typeof fetch;
    const client = createClient({ baseUrl: BASE, apiKey: 'k', fetch: hanging });
    const pending = client.getMarketStatus({ signal: controller.signal }).catch((caught: unknown) => caught);
    controller.abort(new Error('cancelled'));
    expect(await pending).toMatchObject({ message: 'cancelled' });
  });
});

describe('the headers that carry where to go on', () => {
  it('returns X-Next-Since-Id of the alert routes as nextSinceId', async () => {
    const fake = scriptedFetch([
      json(200, { items: [] }, { 'X-Next-Since-Id': '41' }),
      json(200, { items: [] }),
    ]);
    const client = createClient({ baseUrl: BASE, apiKey: 'k', fetch: fake.fetch });
    expect(await client.getInForceAlerts({ symbols: ['SPY'] })).toEqual({ items: [], nextSinceId: 41 });
    expect(await client.getSimultaneousBreaks()).toEqual({ items: [] });
  });

  it('returns the cursor of the Link header of the paged listings as nextCursor', async () => {
    const fake = scriptedFetch([
      json(200, { items: [] }, { Link: '<?limit=2&cursor=1.abc>; rel="next"' }),
      json(200, { items: [] }),
    ]);
    const client = createClient({ baseUrl: BASE, apiKey: 'k', fetch: fake.fetch });
    expect(await client.listInstruments({ limit: 2 })).toEqual({ items: [], nextCursor: '1.abc' });
    expect(await client.getCurrentSetups({ cursor: '1.abc' })).toEqual({ items: [] });
    expect(fake.calls[1]?.url).toBe(`${BASE}/setups/current?cursor=1.abc`);
  });
});

describe('the types', () => {
  it('refuse event names, error codes and enumerated values the service does not have', () => {
    const typeOnly = (stream: MarketDataStream, error: MarketDataError) => {
      // @ts-expect-error: the event is `alert`
      stream.on('alerts', () => {});
      stream.on('alert', (alert) => {
        // @ts-expect-error: cc is one of 1, 2U, 2D, 3
        const cc: typeof alert.cc = '4';
        return cc;
      });
      stream.on('break', (event) => {
        // @ts-expect-error: threshold is 2, 3 or 4
        const threshold: typeof event.threshold = 5;
        return threshold;
      });
      // @ts-expect-error: not an error code of the service or the library
      const code: typeof error.code = 'no_such_code';
      return code;
    };
    expect(typeof typeOnly).toBe('function');
  });
});
