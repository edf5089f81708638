import { describe, expect, it } from 'vitest';
import { parseParams } from '#domain/requests/query-params';
import {
  breaksQuerySchema,
  type InForceAlertBody,
  inForceQuerySchema,
  listInForceAlerts,
  listSimultaneousBreaks,
  type SimultaneousBreakBody,
} from '#domain/strat/alerts';
import { InMemoryEventFeed } from '../../../support/fakes.ts';

const NOW = Date.parse('2024-11-22T16:00:00Z');

function alertBody(symbol: string): InForceAlertBody {
  return {
    symbol,
    timeframe: 'D',
    direction: 'bullish',
    shape: '1-2U',
    price: 100,
    trigger: 101,
    cc: '1',
    triggered_at: new Date(NOW).toISOString(),
  } as unknown as InForceAlertBody;
}

describe('since_id=latest: the head of a feed in one cheap request', () => {
  it('answers no items and the feed head as X-Next-Since-Id, whatever the filters', async () => {
    const feed = new InMemoryEventFeed<InForceAlertBody>();
    await feed.append(
      ['AAPL', 'MSFT', 'NVDA'].map((symbol, index) => ({
        onceKey: symbol,
        triggeredAtMs: NOW - index,
        symbol,
        body: alertBody(symbol),
      })),
    );
    const query = parseParams(inForceQuerySchema, { since_id: 'latest', symbols: 'TSLA' });
    expect(await listInForceAlerts(query, feed, NOW)).toEqual({ body: { items: [] }, nextSinceId: 3 });
  });

  it('answers 0 for an empty feed, so every later event counts as new', async () => {
    const feed = new InMemoryEventFeed<SimultaneousBreakBody>();
    const query = parseParams(breaksQuerySchema, { since_id: 'LATEST' });
    expect(await listSimultaneousBreaks(query, feed, NOW)).toEqual({ body: { items: [] }, nextSinceId: 0 });
  });

  it('still refuses other words', () => {
    expect(() => parseParams(inForceQuerySchema, { since_id: 'newest' })).toThrow(
      'since_id must be a number',
    );
  });
});
