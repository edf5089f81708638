import { describe, expect, it } from 'vitest';
import { sessionsBetween } from '#domain/calendar/sessions';
import {
  backfillOrder,
  backfillProgress,
  backfillSymbol,
  lastHistoryPrices,
  planHistory,
} from '../../../../scripts/local/history-backfill.ts';
import {
  InMemoryBarStore,
  InMemoryLedgerStore,
  InMemoryPriceStore,
  instrument,
} from '../../../support/fakes.ts';

const NOW = Date.parse('2024-11-26T15:00:00Z');
const sessions = sessionsBetween('2024-10-01', '2024-11-26');
const openOf = (date: string) =>
  (sessions.find((session) => session.date === date)?.open.getTime() ?? 0) / 1000;
const plan = planHistory({
  seed: 3,
  instruments: [instrument('AAPL'), instrument('ES1!', { market: 'futures' })],
  nowMs: NOW,
});

describe('planHistory', () => {
  it('makes the last 5 sessions dense, the 10 before medium and older ones sparse', () => {
    expect(plan.densityFor('2024-11-26')).toBe('dense');
    expect(plan.densityFor('2024-11-20')).toBe('dense');
    expect(plan.densityFor('2024-11-19')).toBe('medium');
    // Counting back from 26 November: 26, 25, 22, 21, 20 | 19, 18, 15, 14, 13, 12, 11, 8, 7, 6 | 5 ...
    expect(plan.densityFor('2024-11-06')).toBe('medium');
    expect(plan.densityFor('2024-11-05')).toBe('sparse');
  });

  it('keeps 1m bars of the last session, 15m and 30m of the last 5, 60m and 4h of the last 15', () => {
    expect(plan.keepFrom).toEqual({
      '1m': openOf('2024-11-26'),
      '15m': openOf('2024-11-20'),
      '30m': openOf('2024-11-20'),
      '60m': openOf('2024-11-06'),
      '4h': openOf('2024-11-06'),
    });
  });

  it('covers about 13 months of sessions up to now', () => {
    expect(plan.history.sessionDates[0]).toBe('2023-10-23');
    expect(plan.history.sessionDates.at(-1)).toBe('2024-11-26');
  });
});

describe('backfillSymbol', () => {
  it('writes the kept bars, the latest price and last the ledger, whose recent bars make setups possible', async () => {
    const stores = {
      bars: new InMemoryBarStore(),
      ledgers: new InMemoryLedgerStore(),
      prices: new InMemoryPriceStore(),
    };

    const written = await backfillSymbol(plan, 'AAPL', stores);

    const daily = await stores.bars.query({ symbol: 'AAPL', interval: '1d' }, { limit: 1000 });
    expect(daily.length).toBeGreaterThan(270);
    const minutes = await stores.bars.query({ symbol: 'AAPL', interval: '1m' }, { limit: 10_000 });
    expect(minutes.every((bar) => bar.time >= openOf('2024-11-26'))).toBe(true);
    const ledger = (await stores.ledgers.get('AAPL'))?.ledger;
    expect(ledger?.recent?.['1d']).toHaveLength(11);
    expect((await stores.prices.getMany(['AAPL']))[0]?.price).toBe(lastHistoryPrices(plan).get('AAPL'));
    expect(written).toBeGreaterThan(daily.length);
  });
});

describe('backfillOrder', () => {
  it('puts the futures first, then the ETFs, then the rest by symbol', () => {
    expect(
      backfillOrder([
        instrument('MSFT'),
        instrument('SPY', { type: 'ETF' }),
        instrument('AAPL'),
        instrument('NQ1!', { market: 'futures' }),
        instrument('ES1!', { market: 'futures' }),
      ]),
    ).toEqual(['ES1!', 'NQ1!', 'SPY', 'AAPL', 'MSFT']);
  });
});

describe('backfillProgress', () => {
  it('says the symbols done, the share, the items, the time so far and about how long is left', () => {
    expect(backfillProgress({ done: 100, total: 511, items: 123_456, elapsedMs: 30_000 })).toBe(
      'History: 100/511 symbols (19%), 123,456 items, 30 s, about 2 min 3 s left',
    );
    expect(backfillProgress({ done: 511, total: 511, items: 9, elapsedMs: 61_000 })).toBe(
      'History: 511/511 symbols (100%), 9 items, 1 min 1 s, done',
    );
  });
});
