import { describe, expect, it } from 'vitest';
import { createClient, MarketDataError } from '../../../../clients/typescript/src/index.ts';
import { envelope, json, scriptedFetch } from './fake-fetch.ts';

const STATUS = {
  market: 'stocks',
  timezone: 'America/New_York',
  is_open: false,
  session: { label: '', session_date: '', open_ts: '', close_ts: '' },
  now: '2024-11-23T10:00:00-05:00',
};

function clientWith(script: (Response | Error)[], retry = { maxRetries: 3, baseDelayMs: 1, maxDelayMs: 4 }) {
  const fake = scriptedFetch(script);
  const delays: number[] = [];
  const client = createClient({
    baseUrl: 'http://service.test/api/market/v1/',
    apiKey: 'mda_test',
    fetch: fake.fetch,
    retry,
    random: () => 0,
    onRetry: ({ delayMs }) => delays.push(delayMs),
  });
  return { client, calls: fake.calls, delays };
}

describe('the REST transport', () => {
  it('sends the key in X-API-Key, lists comma-separated, and encodes ! in a path', async () => {
    const { client, calls } = clientWith([json(200, { items: [] }), json(200, { items: [] })]);
    await client.listInstruments({ symbols: ['AAPL', 'ES1!'], limit: 5 });
    await client.getCandles('ES1!', { interval: '1w' });
    expect(calls.map((call) => call.url)).toEqual([
      'http://service.test/api/market/v1/instruments?symbols=AAPL%2CES1%21&limit=5',
      'http://service.test/api/market/v1/candles/ES1%21?interval=1w',
    ]);
    expect(calls[0]?.headers['x-api-key']).toBe('mda_test');
  });

  it('retries a 429 after Retry-After, then answers the body', async () => {
    const { client, calls, delays } = clientWith(
      [envelope(429, 'rate_limit_exceeded', { 'Retry-After': '1' }), json(200, STATUS)],
      { maxRetries: 3, baseDelayMs: 1, maxDelayMs: 2000 },
    );
    expect(await client.getMarketStatus()).toEqual(STATUS);
    expect(calls).toHaveLength(2);
    expect(delays).toEqual([1000]);
  });

  it('retries 5xx and network failures with growing waits, up to maxRetries, then throws the last error', async () => {
    const { client, calls, delays } = clientWith([
      envelope(500, 'internal_error'),
      new TypeError('fetch failed'),
      envelope(503, 'internal_error'),
      envelope(500, 'internal_error'),
    ]);
    const error = await client.getMarketStatus().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MarketDataError);
    expect(error).toMatchObject({ status: 500, code: 'internal_error' });
    expect(calls).toHaveLength(4);
    expect(delays).toEqual([1, 1, 2]);
  });

  it.each([
    [400, 'invalid_parameter'],
    [401, 'missing_api_key'],
    [403, 'missing_scope'],
    [404, 'unknown_symbol'],
  ])('never retries a %i (%s)', async (status, code) => {
    const { client, calls } = clientWith([envelope(status, code), json(200, STATUS)]);
    await expect(client.getState('NOPE')).rejects.toMatchObject({ status, code });
    expect(calls).toHaveLength(1);
  });

  it('reads a bodiless 404 as unknown_interval and a body that is not the envelope by its status', async () => {
    const { client } = clientWith([
      new Response('', { status: 404 }),
      new Response('<html>', { status: 418 }),
    ]);
    await expect(client.getCandles('AAPL')).rejects.toMatchObject({ status: 404, code: 'unknown_interval' });
    await expect(client.getMarketStatus()).rejects.toMatchObject({ status: 418, code: 'http_418' });
  });

  it('refuses a 200 that is not JSON with a clear error', async () => {
    const { client } = clientWith([new Response('not json', { status: 200 })]);
    await expect(client.getMarketStatus()).rejects.toMatchObject({ code: 'invalid_response' });
  });

  it('derives the WebSocket URL from the REST base', async () => {
    const { defaultWsUrl } = await import('../../../../clients/typescript/src/index.ts');
    expect(defaultWsUrl('https://api.example.com/api/market/v1')).toBe('wss://api.example.com/ws/market/v1');
    expect(defaultWsUrl('http://127.0.0.1:3000/api/market/v1')).toBe('ws://127.0.0.1:3000/ws/market/v1');
  });
});
