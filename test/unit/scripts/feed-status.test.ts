import { describe, expect, it } from 'vitest';
import type { FeedTotals } from '#containers/feed-connector/metrics';
import { statusLine } from '../../../scripts/lib/feed-status.ts';

const totals: FeedTotals = {
  received: 1_300,
  put: 1_200,
  reconnects: 1,
  displacements: 0,
  identitiesEvicted: 0,
  gaps: 2,
  gapsFilled: 1,
  dropped: { condition: 7, duplicate: 3 },
  amendmentsApplied: 0,
  amendmentsForwarded: 0,
  outsideBand: 0,
};
const T = Date.parse('2026-11-24T15:00:00Z');

describe('statusLine', () => {
  it('says each feed is connected, the rate since the last line, gaps and drops', () => {
    const feeds = [{ feed: 'alpaca', phase: 'connected', sinceMs: T } as const];
    expect(statusLine({ connected: true, feeds, totals }, 600, 30)).toBe(
      'feed: alpaca connected | 20.0 trades/s | 1200 put | gaps 2 (1 filled) | reconnects 1 | dropped: condition 7, duplicate 3',
    );
  });

  it('shows the prints the LULD band held back to volume only, when there are any', () => {
    const feeds = [{ feed: 'alpaca', phase: 'connected', sinceMs: T } as const];
    expect(statusLine({ connected: true, feeds, totals: { ...totals, outsideBand: 4 } }, 600, 30)).toBe(
      'feed: alpaca connected | 20.0 trades/s | 1200 put | outside band 4 (volume only) | gaps 2 (1 filled) | reconnects 1 | dropped: condition 7, duplicate 3',
    );
  });

  it('says since when a feed is reconnecting and its gap open, and leaves drops out when there are none', () => {
    const feeds = [
      { feed: 'polygon-stocks', phase: 'reconnecting', sinceMs: T, gapOpenSinceMs: T - 1_500 },
      { feed: 'polygon-futures', phase: 'connected', sinceMs: T - 60_000 },
    ] as const;
    expect(statusLine({ connected: false, feeds, totals: { ...totals, dropped: {} } }, 1_200, 30)).toBe(
      'feed: polygon-stocks reconnecting since 2026-11-24T15:00:00.000Z, gap open since ' +
        '2026-11-24T14:59:58.500Z; polygon-futures connected | 0.0 trades/s | 1200 put | gaps 2 (1 filled) | ' +
        'reconnects 1',
    );
  });

  it('says a feed is connecting, and counts displacements', () => {
    const feeds = [{ feed: 'alpaca', phase: 'connecting', sinceMs: T } as const];
    expect(
      statusLine(
        { connected: false, feeds, totals: { ...totals, displacements: 2, dropped: {} } },
        1_200,
        30,
      ),
    ).toBe(
      'feed: alpaca connecting since 2026-11-24T15:00:00.000Z | 0.0 trades/s | 1200 put | gaps 2 (1 filled) | ' +
        'reconnects 1 | displaced 2',
    );
  });

  it('says how many amendments were applied in the connector and forwarded to the ingest path', () => {
    const feeds = [{ feed: 'alpaca', phase: 'connected', sinceMs: T } as const];
    const amended = { ...totals, dropped: {}, amendmentsApplied: 2, amendmentsForwarded: 5 };
    expect(statusLine({ connected: true, feeds, totals: amended }, 1_200, 30)).toBe(
      'feed: alpaca connected | 0.0 trades/s | 1200 put | gaps 2 (1 filled) | reconnects 1 | amendments: 2 applied, 5 forwarded',
    );
  });
});
