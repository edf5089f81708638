import { describe, expect, it } from 'vitest';
import { statusLine } from '../../../scripts/lib/feed-status.ts';

const totals = {
  received: 1_300,
  put: 1_200,
  reconnects: 1,
  gaps: 2,
  gapsFilled: 1,
  dropped: { condition: 7, duplicate: 3 },
  amendmentsApplied: 0,
  amendmentsForwarded: 0,
};

describe('statusLine', () => {
  it('says connected, the rate since the last line, gaps and drops', () => {
    expect(statusLine({ connected: true, feeds: 1, totals }, 600, 30)).toBe(
      'feed: connected | 20.0 trades/s | 1200 put | gaps 2 (1 filled) | reconnects 1 | dropped: condition 7, duplicate 3',
    );
  });

  it('says not connected and leaves drops out when there are none', () => {
    expect(statusLine({ connected: false, feeds: 2, totals: { ...totals, dropped: {} } }, 1_200, 30)).toBe(
      'feed: not connected | 0.0 trades/s | 1200 put | gaps 2 (1 filled) | reconnects 1',
    );
  });

  it('says how many amendments were applied in the connector and forwarded to the ingest path', () => {
    const amended = { ...totals, dropped: {}, amendmentsApplied: 2, amendmentsForwarded: 5 };
    expect(statusLine({ connected: true, feeds: 1, totals: amended }, 1_200, 30)).toBe(
      'feed: connected | 0.0 trades/s | 1200 put | gaps 2 (1 filled) | reconnects 1 | amendments: 2 applied, 5 forwarded',
    );
  });
});
