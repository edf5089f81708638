import { describe, expect, it } from 'vitest';
import { sessionsBetween } from '#domain/calendar/sessions';
import { readBarFile } from '#domain/market-data/bar-file';
import {
  backfillOrder,
  backfillProgress,
  historyBarFiles,
  lastHistoryPrices,
  planHistory,
} from '../../../../scripts/local/history-backfill.ts';
import { instrument } from '../../../support/builders.ts';

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

describe('historyBarFiles', () => {
  it('gives daily rows before the last 15 sessions and minute rows for them, files the import accepts whole', async () => {
    const files = historyBarFiles(plan, ['AAPL'], NOW);
    const rules = { isKnownSymbol: (symbol: string) => symbol === 'AAPL', nowMs: NOW };

    const daily = readBarFile(files.daily, { ...rules, interval: '1d' }).bars.get('AAPL') ?? [];
    const minutes = readBarFile(files.minutes, { ...rules, interval: '1m' }).bars.get('AAPL') ?? [];

    expect(plan.minutesFrom).toBe(openOf('2024-11-06'));
    expect(daily.length).toBeGreaterThan(255);
    expect(daily.at(-1)?.time).toBe(Date.parse('2024-11-05T00:00:00Z') / 1000);
    expect(minutes[0]?.time).toBeGreaterThanOrEqual(openOf('2024-11-06'));
    expect(minutes.every(({ time }) => (time + 60) * 1000 <= NOW)).toBe(true);
    expect(minutes.at(-1)?.close).toBe((await lastHistoryPrices(plan)).get('AAPL'));
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
