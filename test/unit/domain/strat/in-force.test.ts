import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sessionsBetween } from '#domain/calendar/sessions';
import type { Bar, Trade } from '#domain/market-data/bars';
import type { Interval } from '#domain/market-data/intervals';
import type { SymbolLedger } from '#domain/market-data/ledger';
import { periodAt } from '#domain/market-data/periods';
import { type CandleType, candleType } from '#domain/strat/candle-types';
import { type InForceEvent, inForceKey, RECENT_BARS } from '#domain/strat/in-force';
import { deriveSymbolState } from '#domain/strat/setups';
import { TIMEFRAME_INTERVAL, TIMEFRAMES, type Timeframe, timeframeRank } from '#domain/strat/timeframes';
import { foldTrades } from '#domain/strat/trade-fold';
import { perTestTradeIds, trade } from '../../../support/builders.ts';

const SYMBOL = 'AAPL';
const ms = (iso: string): number => Date.parse(iso);
const seconds = (iso: string): number => Date.parse(iso) / 1000;

type Ohlc = readonly [open: number, high: number, low: number, close: number];

/** Trade ids, counted from the start in every test. */
const ids = perTestTradeIds();

/** Daily bars as trades: open 09:35, high 11:00, low 13:00, close 15:55 New York (EDT dates only). */
function dayTrades(date: string, [open, high, low, close]: Ohlc): Trade[] {
  return [
    trade(`${date}T13:35:00Z`, open, { ids }),
    trade(`${date}T15:00:00Z`, high, { ids }),
    trade(`${date}T17:00:00Z`, low, { ids }),
    trade(`${date}T19:55:00Z`, close, { ids }),
  ];
}

/** Mon 13 .. Thu 16 May 2024: C3, C2, C1 (and one older bar when four are given); CC trades on Friday 17. */
const HISTORY_DAYS = ['2024-05-13', '2024-05-14', '2024-05-15', '2024-05-16'];
const CC_DAY = '2024-05-17';

function historyLedger(bars: readonly Ohlc[]): SymbolLedger {
  const days = HISTORY_DAYS.slice(HISTORY_DAYS.length - bars.length);
  const trades = bars.flatMap((bar, index) => dayTrades(days[index] as string, bar));
  return foldTrades(undefined, SYMBOL, trades).ledger;
}

const daily = (events: readonly InForceEvent[]) => events.filter((event) => event.timeframe === 'D');
const at = (time: string) => `${CC_DAY}T${time}Z`;

// C3 [100, 101, 99, 100], C2 a 3, C1 an inside bar: shape 3-1, C1.high 100.5, C1.low 98.5.
const THREE_ONE: Ohlc[] = [
  [100, 101, 99, 100],
  [100, 102, 98, 99],
  [99, 100.5, 98.5, 100],
];

describe('in-force alerts (docs/strat.md#in-force-alerts)', () => {
  const ledger = historyLedger(THREE_ONE);

  it('fires bullish at the first trade above C1.high, with the crossing trade’s price and time', () => {
    const result = foldTrades(ledger, SYMBOL, [
      trade(at('14:00:00'), 99.8, { ids }),
      trade(at('15:00:00'), 100.5, { ids }), // equal to C1.high: not taken out
      trade(at('15:30:00'), 100.6, { ids }),
      trade(at('16:00:00'), 101, { ids }), // a new high, already in force
    ]);
    expect(daily(result.inForce)).toEqual([
      {
        symbol: SYMBOL,
        timeframe: 'D',
        direction: 'bullish',
        shape: '3-1',
        price: 100.6,
        triggeredAt: ms(at('15:30:00')),
        cc: '2U',
        periodTime: seconds('2024-05-17T00:00:00Z'),
      },
    ]);
  });

  it('fires bearish below C1.low; an equal low does not', () => {
    const result = foldTrades(ledger, SYMBOL, [
      trade(at('14:00:00'), 99.8, { ids }),
      trade(at('14:30:00'), 98.5, { ids }),
      trade(at('15:00:00'), 98.4, { ids }),
    ]);
    expect(daily(result.inForce)).toMatchObject([
      { direction: 'bearish', price: 98.4, cc: '2D', triggeredAt: ms(at('15:00:00')) },
    ]);
  });

  it('a bar becoming a 3 fires both directions, in the order they happened, cc 3 on the second', () => {
    const result = foldTrades(ledger, SYMBOL, [
      trade(at('14:00:00'), 99.8, { ids }),
      trade(at('14:30:00'), 98.4, { ids }),
      trade(at('15:00:00'), 99, { ids }),
      trade(at('15:30:00'), 100.6, { ids }),
      trade(at('16:00:00'), 98, { ids }),
      trade(at('16:30:00'), 101, { ids }),
    ]);
    expect(daily(result.inForce).map(({ direction, price, cc }) => ({ direction, price, cc }))).toEqual([
      { direction: 'bearish', price: 98.4, cc: '2D' },
      { direction: 'bullish', price: 100.6, cc: '3' },
    ]);
    expect(result.ledger.fired?.['1d']).toEqual({ bullish: true, bearish: true, last: 'bullish' });
    const row = deriveSymbolState(result.ledger, ms(at('17:00:00')), 'Tech').setups.find(
      (r) => r.timeframe === 'D',
    );
    // The most recent break was bullish: the bullish target, C2's high.
    expect(row).toMatchObject({ in_force: true, p3: true, pmg: 102 });
  });

  it('fires each direction once per period, across batches too', () => {
    const first = foldTrades(ledger, SYMBOL, [
      trade(at('14:00:00'), 99.8, { ids }),
      trade(at('14:30:00'), 100.6, { ids }),
    ]);
    expect(daily(first.inForce)).toHaveLength(1);
    const second = foldTrades(first.ledger, SYMBOL, [
      trade(at('15:00:00'), 99, { ids }),
      trade(at('15:30:00'), 100.7, { ids }),
      trade(at('16:00:00'), 100.8, { ids }),
    ]);
    expect(daily(second.inForce)).toEqual([]);
    // Through storage (a JSON round trip) as well.
    const stored = JSON.parse(JSON.stringify(first.ledger)) as SymbolLedger;
    expect(daily(foldTrades(stored, SYMBOL, [trade(at('16:30:00'), 101, { ids })]).inForce)).toEqual([]);
  });

  it('the opening trade of a period fires when it gaps past C1', () => {
    const result = foldTrades(ledger, SYMBOL, [trade(at('13:30:00'), 103, { ids })]);
    expect(daily(result.inForce)).toMatchObject([
      { direction: 'bullish', price: 103, cc: '2U', triggeredAt: ms(at('13:30:00')) },
    ]);
  });

  it('a new period allows them again, against its own C1', () => {
    const friday = foldTrades(ledger, SYMBOL, [
      trade(at('14:00:00'), 100.6, { ids }),
      trade(at('19:00:00'), 100, { ids }),
    ]);
    expect(daily(friday.inForce)).toHaveLength(1);
    // Monday: C1 is Friday [100.6, 100.6, 100, 100] (a 2U), C2 Thursday's inside bar.
    const monday = foldTrades(friday.ledger, SYMBOL, [
      trade('2024-05-20T13:35:00Z', 100.5, { ids }),
      trade('2024-05-20T14:00:00Z', 100.7, { ids }),
      trade('2024-05-20T14:30:00Z', 99.9, { ids }),
    ]);
    expect(daily(monday.inForce)).toMatchObject([
      {
        direction: 'bullish',
        shape: '1-2U',
        price: 100.7,
        cc: '2U',
        periodTime: seconds('2024-05-20T00:00:00Z'),
      },
      {
        direction: 'bearish',
        shape: '1-2U',
        price: 99.9,
        cc: '3',
        periodTime: seconds('2024-05-20T00:00:00Z'),
      },
    ]);
    expect(monday.ledger.fired?.['1d']).toEqual({ bullish: true, bearish: true, last: 'bearish' });
  });

  it('does not fire where no setup row exists (fewer than three completed bars)', () => {
    const young = historyLedger(THREE_ONE.slice(1));
    const result = foldTrades(young, SYMBOL, [
      trade(at('14:00:00'), 90, { ids }),
      trade(at('15:00:00'), 110, { ids }),
    ]);
    expect(daily(result.inForce)).toEqual([]);
    expect(result.ledger.fired?.['1d']).toBeUndefined();
    // The next period has three completed bars behind it (C2 Thursday's inside bar, C1 Friday's 3): it fires.
    const next = foldTrades(result.ledger, SYMBOL, [trade('2024-05-20T14:00:00Z', 111, { ids })]);
    expect(daily(next.inForce)).toMatchObject([{ direction: 'bullish', shape: '1-3', cc: '2U' }]);
  });

  it('lists the events of one trade in timeframe order, and trades in order', () => {
    const result = foldTrades(ledger, SYMBOL, [
      trade(at('14:00:00'), 99.8, { ids }),
      trade(at('14:10:00'), 103, { ids }),
    ]);
    const order = result.inForce.map((event) => [event.triggeredAt, timeframeRank(event.timeframe)]);
    expect(order).toEqual(
      [...order].sort((a, b) => (a[0] as number) - (b[0] as number) || (a[1] as number) - (b[1] as number)),
    );
    // The first trade opens the intraday bars below Thursday's last ones; the second takes out everything up.
    expect(result.inForce.map((event) => `${event.timeframe} ${event.direction}`)).toEqual([
      '15 bearish',
      '30 bearish',
      '60 bearish',
      '4H bearish',
      '15 bullish',
      '30 bullish',
      '60 bullish',
      '4H bullish',
      'D bullish',
    ]);
  });

  it('works from a ledger stored before the Strat rules (no recent, no fired): it starts keeping bars', () => {
    const { recent: _recent, fired: _fired, ...old } = historyLedger(THREE_ONE);
    const result = foldTrades(old, SYMBOL, [trade(at('14:00:00'), 110, { ids })]);
    expect(result.inForce).toEqual([]);
    expect(result.ledger.recent?.['1d']).toEqual([expect.objectContaining({ high: 100.5, low: 98.5 })]);
  });

  it('does not fire late from a stored ledger that lost its flags but already took C1 out', () => {
    const first = foldTrades(ledger, SYMBOL, [trade(at('14:00:00'), 100.6, { ids })]);
    const { fired: _fired, ...lost } = first.ledger;
    expect(daily(foldTrades(lost, SYMBOL, [trade(at('15:00:00'), 101, { ids })]).inForce)).toEqual([]);
  });

  it('keeps the last RECENT_BARS completed bars per Strat interval, none for 1m', () => {
    const trades = sessionsBetween('2024-03-01', '2024-05-17').map((session, index) =>
      trade(session.open.getTime() + 60_000, 100 + (index % 7), { ids }),
    );
    const { ledger: long } = foldTrades(undefined, SYMBOL, trades);
    expect(RECENT_BARS).toBe(11);
    expect(long.recent?.['1d']).toHaveLength(RECENT_BARS);
    expect(long.recent?.['1d']?.at(-1)?.time).toBe(seconds('2024-05-16T00:00:00Z'));
    expect(long.recent?.['1w']).toHaveLength(RECENT_BARS);
    expect(long.recent?.['1mo']).toHaveLength(2);
    expect(long.recent?.['1m']).toBeUndefined();
  });

  it('the year-long backfill (one call) ends with recent bars and setups for every timeframe it covers', () => {
    const trades = sessionsBetween('2023-01-03', '2024-05-17').flatMap((session, index) => {
      const open = session.open.getTime();
      const base = 100 + 15 * Math.sin(index / 9);
      return [0, 1, 2, 3, 4, 5].map((step) =>
        trade(open + step * 3_900_000 + 60_000, base + ((step * 7 + index) % 5) - 2, { ids }),
      );
    });
    const result = foldTrades(undefined, SYMBOL, trades);
    expect(result.inForce.length).toBeGreaterThan(100);
    const state = deriveSymbolState(result.ledger, ms('2024-05-17T19:00:00Z'), 'Tech');
    expect(state.setups.map((row) => row.timeframe)).toEqual(['15', '30', '60', '4H', 'D', 'W', 'M', 'Q']);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Properties.
// ---------------------------------------------------------------------------------------------------------

const FIRST_DAYS = ['2024-05-28', '2024-06-27', '2024-11-25', '2024-12-26', '2024-03-06'].map((date) =>
  ms(`${date}T00:00:00Z`),
);
const MS_PER_DAY = 86_400_000;

/** Time-ordered trades over up to 12 days (in and out of sessions), a random walk with jumps. */
const tradeStreams = fc
  .tuple(
    fc.constantFrom(...FIRST_DAYS),
    fc.array(
      fc.record({
        day: fc.integer({ min: 0, max: 11 }),
        timeOfDay: fc.integer({ min: ms('1970-01-01T13:00:00Z'), max: ms('1970-01-01T21:30:00Z') }),
        step: fc.oneof(
          { weight: 8, arbitrary: fc.integer({ min: -20, max: 20 }) },
          { weight: 1, arbitrary: fc.integer({ min: -300, max: 300 }) },
        ),
      }),
      { maxLength: 200, size: 'max' },
    ),
    fc.integer({ min: 5_000, max: 20_000 }),
  )
  .map(([firstDay, events, start]) => {
    const sorted = events
      .map(({ day, timeOfDay, step }) => ({ timestamp: firstDay + day * MS_PER_DAY + timeOfDay, step }))
      .sort((a, b) => a.timestamp - b.timestamp);
    let cents = start;
    return sorted.map(({ timestamp, step }, index): Trade => {
      cents = Math.max(1, cents + step);
      return {
        symbol: SYMBOL,
        price: cents / 100,
        size: 1,
        timestamp,
        tradeId: String(index).padStart(6, '0'),
      };
    });
  });

function splitAt<T>(items: readonly T[], cuts: readonly number[]): T[][] {
  const points = [...new Set(cuts.map((cut) => cut % (items.length + 1)))].sort((a, b) => a - b);
  const parts: T[][] = [];
  let from = 0;
  for (const point of [...points, items.length]) {
    parts.push(items.slice(from, point));
    from = point;
  }
  return parts;
}

function foldInBatches(batches: readonly (readonly Trade[])[]) {
  let ledger: SymbolLedger | undefined;
  const inForce: InForceEvent[] = [];
  for (const batch of batches) {
    const result = foldTrades(ledger, SYMBOL, batch);
    ledger = result.ledger;
    inForce.push(...result.inForce);
  }
  return { ledger, inForce };
}

/**
 * The reference: per timeframe, group the in-session trades by period naively and, in each period with
 * three completed bars before it, fire each direction at the first trade past C1. Sorted by trade, then
 * timeframe.
 */
function referenceEvents(trades: readonly Trade[]): InForceEvent[] {
  const found: { position: number; rank: number; event: InForceEvent }[] = [];
  for (const timeframe of TIMEFRAMES) {
    const interval: Interval = TIMEFRAME_INTERVAL[timeframe];
    const completed: Bar[] = [];
    let current: Bar | undefined;
    let up = false;
    let down = false;
    trades.forEach((t, position) => {
      const period = periodAt(interval, t.timestamp);
      if (period === undefined) return;
      if (current !== undefined && current.time === period.time) {
        current.high = Math.max(current.high, t.price);
        current.low = Math.min(current.low, t.price);
        current.close = t.price;
      } else {
        if (current !== undefined) completed.push(current);
        current = {
          time: period.time,
          open: t.price,
          high: t.price,
          low: t.price,
          close: t.price,
          volume: 0,
        };
        up = false;
        down = false;
      }
      const [c3, c2, c1] = completed.slice(-3);
      if (c1 === undefined || c2 === undefined || c3 === undefined) return;
      const shape = `${candleType(c2, c3)}-${candleType(c1, c2)}`;
      const bar = current;
      const fire = (direction: 'bullish' | 'bearish') =>
        found.push({
          position,
          rank: timeframeRank(timeframe),
          event: {
            symbol: SYMBOL,
            timeframe,
            direction,
            shape,
            price: t.price,
            triggeredAt: t.timestamp,
            cc: candleType(bar, c1),
            periodTime: bar.time,
          },
        });
      if (!up && t.price > c1.high) {
        up = true;
        fire('bullish');
      }
      if (!down && t.price < c1.low) {
        down = true;
        fire('bearish');
      }
    });
  }
  return found.sort((a, b) => a.position - b.position || a.rank - b.rank).map(({ event }) => event);
}

const TYPE_ORDER: Record<CandleType, number> = { '1': 0, '2U': 1, '2D': 1, '3': 2 };

describe('in-force alerts: properties', () => {
  it('equal a naive reference (per period, first trade past C1, each direction once)', () => {
    fc.assert(
      fc.property(tradeStreams, (trades) => {
        expect(foldTrades(undefined, SYMBOL, trades).inForce).toEqual(referenceEvents(trades));
      }),
    );
  });

  it('replaying in one batch or in many gives the same alerts and ledger', () => {
    fc.assert(
      fc.property(tradeStreams, fc.array(fc.nat(), { maxLength: 10 }), (trades, cuts) => {
        const once = foldTrades(undefined, SYMBOL, trades);
        const batched = foldInBatches(splitAt(trades, cuts));
        expect(batched.inForce).toEqual(once.inForce);
        if (once.applied > 0) expect(batched.ledger).toEqual(once.ledger);
      }),
    );
  });

  it('never fires an alert twice (symbol, timeframe, direction, period); cc is 2U, 2D or 3 and agrees', () => {
    fc.assert(
      fc.property(tradeStreams, (trades) => {
        const { inForce } = foldTrades(undefined, SYMBOL, trades);
        expect(new Set(inForce.map(inForceKey)).size).toBe(inForce.length);
        for (const event of inForce) {
          expect(['2U', '2D', '3']).toContain(event.cc);
          if (event.direction === 'bullish') expect(['2U', '3']).toContain(event.cc);
          else expect(['2D', '3']).toContain(event.cc);
        }
      }),
    );
  });

  it('a forming bar’s type never moves backwards (1 -> 2 -> 3) as trades are folded', () => {
    fc.assert(
      fc.property(tradeStreams, (trades) => {
        let ledger: SymbolLedger | undefined;
        const seen = new Map<Timeframe, { time: number; type: CandleType }>();
        for (const t of trades) {
          ledger = foldTrades(ledger, SYMBOL, [t]).ledger;
          for (const timeframe of TIMEFRAMES) {
            const interval = TIMEFRAME_INTERVAL[timeframe];
            const forming = ledger.forming[interval];
            const previous = ledger.recent?.[interval]?.at(-1);
            if (forming === undefined || previous === undefined) continue;
            const type = candleType(forming, previous);
            const before = seen.get(timeframe);
            if (before !== undefined && before.time === forming.time) {
              expect(TYPE_ORDER[type]).toBeGreaterThanOrEqual(TYPE_ORDER[before.type]);
              if (before.type !== '1' && before.type !== '3') expect([before.type, '3']).toContain(type);
            }
            seen.set(timeframe, { time: forming.time, type });
          }
        }
      }),
      { numRuns: 40 },
    );
  });

  it('the derived row is in force exactly when an alert fired in CC’s period', () => {
    fc.assert(
      fc.property(tradeStreams, (trades) => {
        const { ledger, inForce, applied } = foldTrades(undefined, SYMBOL, trades);
        if (applied === 0) return;
        const nowMs = ledger.lastTrade?.timestamp as number;
        const state = deriveSymbolState(ledger, nowMs, 'Tech');
        for (const row of state.setups) {
          const forming = ledger.forming[TIMEFRAME_INTERVAL[row.timeframe]];
          const fired = inForce.filter(
            (event) => event.timeframe === row.timeframe && event.periodTime === forming?.time,
          );
          expect(row.in_force).toBe(fired.length > 0);
          expect(row.p3).toBe(fired.length === 2);
          if (fired.length > 0) expect(row.shape).toBe(fired[0]?.shape);
        }
      }),
    );
  });
});
