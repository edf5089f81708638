import { describe, expect, it } from 'vitest';
import { createClient } from '../../../../clients/typescript/src/index.ts';
import { json, scriptedFetch } from './fake-fetch.ts';

const alert = (id: number) => ({
  id,
  symbol: 'AAPL',
  timeframe: 'D',
  direction: 'bullish',
  shape: '1-2U',
  price: 200,
  triggered_at: '2024-11-22T14:50:45.000Z',
  cc: '2U',
});

describe('pollInForceAlerts', () => {
  it('asks after the highest id seen, jumps to X-Next-Since-Id, and yields each alert once in order', async () => {
    const { fetch, calls } = scriptedFetch([
      json(200, { items: [alert(3), alert(4)] }),
      // A repeat and a page that examined past what it returned (a narrow filter).
      json(200, { items: [alert(4), alert(5)] }, { 'X-Next-Since-Id': '5000' }),
      json(200, { items: [alert(5001)] }),
      json(200, { items: [] }),
    ]);
    const client = createClient({ baseUrl: 'http://service.test/api/market/v1', apiKey: 'k', fetch });
    const controller = new AbortController();
    const ids: number[] = [];
    for await (const item of client.pollInForceAlerts({
      sinceId: 2,
      symbols: ['AAPL'],
      intervalMs: 1,
      signal: controller.signal,
    })) {
      ids.push(item.id);
      if (item.id === 5001) controller.abort();
    }
    expect(ids).toEqual([3, 4, 5, 5001]);
    expect(calls.map((call) => new URL(call.url).searchParams.get('since_id'))).toEqual(['2', '4', '5000']);
    expect(new URL(calls[0]?.url ?? '').searchParams.get('symbols')).toBe('AAPL');
  });

  it('waits intervalMs when a poll brings nothing new, then polls again from the same id', async () => {
    const { fetch, calls } = scriptedFetch([json(200, { items: [] }), json(200, { items: [alert(8)] })]);
    const client = createClient({ baseUrl: 'http://service.test/api/market/v1', apiKey: 'k', fetch });
    const poller = client.pollInForceAlerts({ sinceId: 7, intervalMs: 1 });
    expect((await poller.next()).value).toEqual(alert(8));
    await poller.return();
    expect(calls.map((call) => new URL(call.url).searchParams.get('since_id'))).toEqual(['7', '7']);
  });

  it('throws an error the transport does not retry', async () => {
    const { fetch } = scriptedFetch([
      json(403, { error: { code: 'missing_scope', message: 'missing scope' } }),
    ]);
    const client = createClient({ baseUrl: 'http://service.test/api/market/v1', apiKey: 'k', fetch });
    await expect(client.pollSimultaneousBreaks().next()).rejects.toMatchObject({
      status: 403,
      code: 'missing_scope',
    });
  });
});
