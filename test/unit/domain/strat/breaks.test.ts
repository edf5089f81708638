import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Trade } from '#domain/market-data/bars';
import type { SymbolLedger } from '#domain/market-data/ledger';
import {
  breakKey,
  DEFAULT_BREAK_WINDOW_MS,
  FUTURES_SYMBOLS,
  isFuturesSymbol,
  type SimultaneousBreakEvent,
  simultaneousBreaks,
} from '#domain/strat/breaks';
import type { Direction } from '#domain/strat/directions';
import type { InForceEvent } from '#domain/strat/in-force';
import type { Timeframe } from '#domain/strat/timeframes';
import { foldTrades } from '#domain/strat/trade-fold';

const ms = (iso: string): number => Date.parse(iso);
const T0 = ms('2024-05-17T14:00:00Z');
const MINUTE = 60_000;
const PERIOD = ms('2024-05-17T00:00:00Z') / 1000;

/** An in-force event of `symbol` at T0 + `offsetMs` (daily, bullish, this Friday unless told). */
function broke(
  symbol: string,
  offsetMs: number,
  change: { timeframe?: Timeframe; direction?: Direction; periodTime?: number } = {},
): InForceEvent {
  return {
    symbol,
    timeframe: change.timeframe ?? 'D',
    direction: change.direction ?? 'bullish',
    shape: '2D-1',
    price: 100,
    triggeredAt: T0 + offsetMs,
    cc: '2U',
    periodTime: change.periodTime ?? PERIOD,
  };
}

const brief = (events: readonly SimultaneousBreakEvent[]) =>
  events.map(({ threshold, symbols, triggeredAt }) => ({ threshold, symbols, at: triggeredAt - T0 }));

describe('simultaneous breaks (docs/strat.md#simultaneous-breaks)', () => {
  it('reaches 2, 3 and 4 inside the window, each once, listing the futures in the order they broke', () => {
    const events = simultaneousBreaks([
      broke('NQ1!', 0),
      broke('ES1!', MINUTE),
      broke('YM1!', 2 * MINUTE),
      broke('RTY1!', 3 * MINUTE),
    ]);
    expect(events).toEqual([
      {
        timeframe: 'D',
        direction: 'bullish',
        threshold: 2,
        symbols: ['NQ1!', 'ES1!'],
        triggeredAt: T0 + MINUTE,
        periodTime: PERIOD,
      },
      {
        timeframe: 'D',
        direction: 'bullish',
        threshold: 3,
        symbols: ['NQ1!', 'ES1!', 'YM1!'],
        triggeredAt: T0 + 2 * MINUTE,
        periodTime: PERIOD,
      },
      {
        timeframe: 'D',
        direction: 'bullish',
        threshold: 4,
        symbols: ['NQ1!', 'ES1!', 'YM1!', 'RTY1!'],
        triggeredAt: T0 + 3 * MINUTE,
        periodTime: PERIOD,
      },
    ]);
  });

  it('does not fire for breaks further apart than the window', () => {
    expect(
      simultaneousBreaks([
        broke('ES1!', 0),
        broke('NQ1!', 5 * MINUTE + 1),
        broke('RTY1!', 10 * MINUTE + 2),
        broke('YM1!', 15 * MINUTE + 3),
      ]),
    ).toEqual([]);
  });

  it('the window is inclusive: exactly 5:00.000 apart is within, 5:00.001 is not', () => {
    expect(brief(simultaneousBreaks([broke('ES1!', 0), broke('NQ1!', 5 * MINUTE)]))).toEqual([
      { threshold: 2, symbols: ['ES1!', 'NQ1!'], at: 5 * MINUTE },
    ]);
    expect(simultaneousBreaks([broke('ES1!', 0), broke('NQ1!', 5 * MINUTE + 1)])).toEqual([]);
    expect(DEFAULT_BREAK_WINDOW_MS).toBe(5 * MINUTE);
  });

  it('slides: the count is taken in the window ending at each break', () => {
    const events = simultaneousBreaks([
      broke('ES1!', 0),
      broke('NQ1!', 4 * MINUTE), // 2: ES, NQ
      broke('RTY1!', 8 * MINUTE), // ES left the window: NQ, RTY is 2 again, already fired
      broke('YM1!', 9 * MINUTE), // NQ, RTY, YM: 3
    ]);
    expect(brief(events)).toEqual([
      { threshold: 2, symbols: ['ES1!', 'NQ1!'], at: 4 * MINUTE },
      { threshold: 3, symbols: ['NQ1!', 'RTY1!', 'YM1!'], at: 9 * MINUTE },
    ]);
  });

  it('takes a configurable window', () => {
    const events = [broke('ES1!', 0), broke('NQ1!', 7 * MINUTE)];
    expect(simultaneousBreaks(events)).toEqual([]);
    expect(brief(simultaneousBreaks(events, 10 * MINUTE))).toEqual([
      { threshold: 2, symbols: ['ES1!', 'NQ1!'], at: 7 * MINUTE },
    ]);
    expect(simultaneousBreaks([broke('ES1!', 0), broke('NQ1!', 0)], 0)).toHaveLength(1);
    expect(() => simultaneousBreaks(events, -1)).toThrow(RangeError);
    expect(() => simultaneousBreaks(events, Number.NaN)).toThrow(RangeError);
  });

  it('fires each threshold once per timeframe, direction and period; a new period allows them again', () => {
    const nextPeriod = ms('2024-05-20T00:00:00Z') / 1000;
    const events = simultaneousBreaks([
      broke('ES1!', 0),
      broke('NQ1!', MINUTE),
      // The same futures again in the same period (say, redelivered): no second event.
      broke('ES1!', 2 * MINUTE),
      broke('NQ1!', 2 * MINUTE),
      broke('ES1!', 3 * 86_400_000, { periodTime: nextPeriod }),
      broke('NQ1!', 3 * 86_400_000 + MINUTE, { periodTime: nextPeriod }),
    ]);
    expect(events.map((event) => [event.periodTime, event.threshold])).toEqual([
      [PERIOD, 2],
      [nextPeriod, 2],
    ]);
    expect(new Set(events.map(breakKey)).size).toBe(events.length);
  });

  it('keeps timeframes and directions apart', () => {
    const events = simultaneousBreaks([
      broke('ES1!', 0),
      broke('NQ1!', MINUTE, { direction: 'bearish' }),
      broke('RTY1!', MINUTE, { timeframe: '60' }),
      broke('YM1!', 2 * MINUTE, { timeframe: '60' }),
      broke('ES1!', 3 * MINUTE, { timeframe: '60' }),
    ]);
    expect(
      events.map(({ timeframe, direction, threshold, symbols }) => ({
        timeframe,
        direction,
        threshold,
        symbols,
      })),
    ).toEqual([
      { timeframe: '60', direction: 'bullish', threshold: 2, symbols: ['RTY1!', 'YM1!'] },
      { timeframe: '60', direction: 'bullish', threshold: 3, symbols: ['RTY1!', 'YM1!', 'ES1!'] },
    ]);
  });

  it('ignores other symbols (index ETFs included)', () => {
    expect(simultaneousBreaks([broke('SPY', 0), broke('QQQ', 0), broke('ES1!', 0), broke('ES', 0)])).toEqual(
      [],
    );
    expect(FUTURES_SYMBOLS.every(isFuturesSymbol)).toBe(true);
    expect(isFuturesSymbol('ES')).toBe(false);
  });

  it('orders breaks at the same millisecond by symbol', () => {
    expect(brief(simultaneousBreaks([broke('YM1!', 0), broke('RTY1!', 0), broke('ES1!', 0)]))).toEqual([
      { threshold: 2, symbols: ['ES1!', 'RTY1!'], at: 0 },
      { threshold: 3, symbols: ['ES1!', 'RTY1!', 'YM1!'], at: 0 },
    ]);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Properties.
// ---------------------------------------------------------------------------------------------------------

const eventSets = fc.array(
  fc.record({
    symbol: fc.constantFrom(...FUTURES_SYMBOLS, 'SPY'),
    offset: fc.oneof(
      fc.integer({ min: 0, max: 20 * MINUTE }),
      fc.constantFrom(0, 5 * MINUTE, 5 * MINUTE + 1),
    ),
    timeframe: fc.constantFrom<Timeframe>('15', 'D'),
    direction: fc.constantFrom<Direction>('bullish', 'bearish'),
    period: fc.constantFrom(PERIOD, PERIOD + 86_400),
  }),
  { maxLength: 30 },
);

const toEvents = (
  set: readonly {
    symbol: string;
    offset: number;
    timeframe: Timeframe;
    direction: Direction;
    period: number;
  }[],
) =>
  set.map(({ symbol, offset, timeframe, direction, period }) =>
    broke(symbol, offset, { timeframe, direction, periodTime: period }),
  );

/** The reference: at each break, count the distinct futures of its group within [t - window, t]. */
function referenceBreaks(events: readonly InForceEvent[], windowMs: number): string[] {
  const futures = events.filter((event) => isFuturesSymbol(event.symbol));
  const fired = new Set<string>();
  for (const event of futures) {
    const group = futures.filter(
      (other) =>
        other.timeframe === event.timeframe &&
        other.direction === event.direction &&
        other.periodTime === event.periodTime,
    );
    const earliest = new Map<string, number>();
    for (const other of group)
      earliest.set(other.symbol, Math.min(earliest.get(other.symbol) ?? Infinity, other.triggeredAt));
    const t = earliest.get(event.symbol) as number;
    const inWindow = [...earliest.values()].filter((at) => at <= t && t - at <= windowMs).length;
    for (let threshold = 2; threshold <= inWindow; threshold++) {
      fired.add(`${event.timeframe}|${event.direction}|${event.periodTime}|${threshold}`);
    }
  }
  return [...fired].sort();
}

describe('simultaneous breaks: properties', () => {
  it('depend only on the set of events: any order, any split, duplicates included', () => {
    fc.assert(
      fc.property(eventSets, fc.array(fc.nat()), (set, keys) => {
        const events = toEvents(set);
        const expected = simultaneousBreaks(events);
        const shuffled = events
          .map((event, index) => ({ event, key: keys[index % Math.max(1, keys.length)] ?? index }))
          .sort((a, b) => a.key - b.key)
          .map(({ event }) => event);
        expect(simultaneousBreaks(shuffled)).toEqual(expected);
        expect(simultaneousBreaks([...events].reverse())).toEqual(expected);
        expect(simultaneousBreaks([...events, ...events.slice(0, 5)])).toEqual(expected);
      }),
    );
  });

  it('fire exactly the thresholds a naive count reaches, each once, with the reaching break’s time', () => {
    fc.assert(
      fc.property(eventSets, fc.constantFrom(DEFAULT_BREAK_WINDOW_MS, MINUTE, 0), (set, windowMs) => {
        const events = toEvents(set);
        const breaks = simultaneousBreaks(events, windowMs);
        expect(breaks.map(breakKey).sort()).toEqual(referenceBreaks(events, windowMs));
        for (const event of breaks) {
          expect(event.symbols).toHaveLength(event.threshold);
          expect(new Set(event.symbols).size).toBe(event.threshold);
          expect(event.symbols.every(isFuturesSymbol)).toBe(true);
        }
      }),
    );
  });
});

// ---------------------------------------------------------------------------------------------------------
// From the fold: the four futures' trades, replayed whole or in batches.
// ---------------------------------------------------------------------------------------------------------

/** Four sessions of the futures moving together, with one trade a minute each and a common drift. */
function futuresTrades(seed: number): Map<string, Trade[]> {
  let state = seed >>> 0;
  const next = () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 4_294_967_296;
  };
  const byFuture = new Map<string, Trade[]>(FUTURES_SYMBOLS.map((symbol) => [symbol, []]));
  const levels = [5950, 20_000, 2_100, 40_000];
  for (const date of ['2024-05-14', '2024-05-15', '2024-05-16', '2024-05-17']) {
    const open = ms(`${date}T13:30:00Z`);
    for (let minute = 0; minute < 390; minute += 1 + Math.floor(next() * 3)) {
      const common = (next() - 0.5) * 0.004;
      FUTURES_SYMBOLS.forEach((symbol, index) => {
        levels[index] = (levels[index] as number) * (1 + common + (next() - 0.5) * 0.001);
        (byFuture.get(symbol) as Trade[]).push({
          symbol,
          price: Math.round((levels[index] as number) * 4) / 4,
          size: 1,
          timestamp: open + minute * MINUTE + Math.floor(next() * MINUTE),
          tradeId: String(minute).padStart(6, '0'),
        });
      });
    }
  }
  return byFuture;
}

function inForceOf(trades: readonly Trade[], symbol: string, cuts: readonly number[]): InForceEvent[] {
  let ledger: SymbolLedger | undefined;
  const events: InForceEvent[] = [];
  const points = [...new Set(cuts.map((cut) => cut % (trades.length + 1)))].sort((a, b) => a - b);
  let from = 0;
  for (const point of [...points, trades.length]) {
    const result = foldTrades(ledger, symbol, trades.slice(from, point));
    ledger = result.ledger;
    events.push(...result.inForce);
    from = point;
  }
  return events;
}

describe('simultaneous breaks from folded futures', () => {
  it('a day replayed in one batch or in many gives the same in-force events and breaks', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000 }), fc.array(fc.nat(), { maxLength: 20 }), (seed, cuts) => {
        const byFuture = futuresTrades(seed);
        const whole: InForceEvent[] = [];
        const batched: InForceEvent[] = [];
        for (const [symbol, trades] of byFuture) {
          whole.push(...inForceOf(trades, symbol, []));
          batched.push(...inForceOf(trades, symbol, cuts));
        }
        expect(batched).toEqual(whole);
        const breaks = simultaneousBreaks(whole);
        expect(simultaneousBreaks(batched.reverse())).toEqual(breaks);
        expect(breaks.length).toBeGreaterThan(0);
      }),
      { numRuns: 10 },
    );
  });
});
