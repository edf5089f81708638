import { describe, expect, it } from 'vitest';
import { ALERTS_READ_BUDGET_MS } from '#domain/requests/limits';
import { parseParams } from '#domain/requests/query-params';
import {
  breaksQuerySchema,
  inForceQuerySchema,
  listInForceAlerts,
  listSimultaneousBreaks,
} from '#domain/strat/alerts';
import type { EventFeed, FeedReadQuery } from '#domain/strat/ports';

/** A feed that records the reads asked of it and holds nothing. */
function recordingFeed<Body>() {
  const reads: FeedReadQuery<Body>[] = [];
  const feed: EventFeed<Body> = {
    append: async () => 0,
    read: async (query) => {
      reads.push(query);
      return { events: [] };
    },
    readBySymbol: async () => [],
  };
  return { feed, reads };
}

const NOW = Date.parse('2024-11-26T15:00:00Z');

describe('the alert feeds read with a time bound and a filter storage can apply', () => {
  it('asks for in-force alerts of one timeframe, and only those fields that are not all', async () => {
    const { feed, reads } = recordingFeed<never>();
    await listInForceAlerts(
      parseParams(inForceQuerySchema, { timeframe: 'w', symbols: 'spy,aapl' }),
      feed,
      NOW,
    );
    expect(reads[0]?.budgetMs).toBe(ALERTS_READ_BUDGET_MS);
    expect(reads[0]?.bodyMatch).toEqual({ symbol: ['SPY', 'AAPL'], timeframe: ['W'] });
  });

  it('asks for breaks of one threshold as the number stored', async () => {
    const { feed, reads } = recordingFeed<never>();
    await listSimultaneousBreaks(
      parseParams(breaksQuerySchema, { threshold: '3', direction: 'bullish' }),
      feed,
      NOW,
    );
    expect(reads[0]?.budgetMs).toBe(ALERTS_READ_BUDGET_MS);
    expect(reads[0]?.bodyMatch).toEqual({ direction: ['bullish'], threshold: [3] });
  });

  it('leaves a list longer than one IN takes to the in-process filter', async () => {
    const { feed, reads } = recordingFeed<never>();
    const symbols = Array.from({ length: 150 }, (_, n) => `S${n}`).join(',');
    await listInForceAlerts(parseParams(inForceQuerySchema, { symbols }), feed, NOW);
    expect(reads[0]?.bodyMatch).toEqual({});
  });
});
