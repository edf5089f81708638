import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sessionsBetween } from '#domain/calendar/sessions';
import type { Bar, FormingBar, Trade } from '#domain/market-data/bars';
import type { Interval } from '#domain/market-data/intervals';
import type { SymbolLedger } from '#domain/market-data/ledger';
import { currentPeriod } from '#domain/market-data/periods';
import type { Direction } from '#domain/strat/directions';
import {
  derivedSinceLastPeriodEdge,
  deriveSymbolState,
  equalStates,
  nextStateChangeMs,
  PERIOD_EDGE_MS,
  PMG_LOOKBACK,
  pmgOf,
  type SetupRow,
  type SymbolState,
  setupRow,
  stateKey,
  stratCandles,
} from '#domain/strat/setups';
import { tfcColor, tfcOf } from '#domain/strat/tfc';
import { TIMEFRAME_INTERVAL, TIMEFRAMES, type Timeframe } from '#domain/strat/timeframes';
import { foldTrades } from '#domain/strat/trade-fold';
import { perTestTradeIds, trade } from '../../../support/builders.ts';

const SYMBOL = 'AAPL';
const SECTOR = 'Technology';
const ms = (iso: string): number => Date.parse(iso);

type Ohlc = readonly [open: number, high: number, low: number, close: number];

// ---------------------------------------------------------------------------------------------------------
// Hand-made ledgers: one interval's bars on a made-up time line (deriveSymbolState never asks the calendar).
// ---------------------------------------------------------------------------------------------------------

const NOW = 1_000_000_000;
const STEP = 60_000;

/**
 * A ledger whose `interval` holds `bars` (oldest first): the last is the forming bar, whose period contains
 * NOW when `current` (then it is CC), else ended before NOW (then it is C1).
 */
function handLedger(
  bars: readonly Ohlc[],
  options: { current?: boolean; interval?: Interval; last?: Direction; price?: number } = {},
): SymbolLedger {
  const interval = options.interval ?? '1d';
  const current = options.current ?? true;
  const count = bars.length;
  const endOf = current ? NOW + STEP : NOW - STEP;
  const made: Bar[] = bars.map(([open, high, low, close], index) => ({
    time: (endOf - (count - index) * STEP) / 1000,
    open,
    high,
    low,
    close,
    volume: 1,
  }));
  const last = made.at(-1) as Bar;
  const forming: FormingBar = { ...last, startMs: last.time * 1000, endMs: last.time * 1000 + STEP };
  const ledger: SymbolLedger = {
    symbol: SYMBOL,
    forming: { [interval]: forming },
    recent: { [interval]: made.slice(0, -1) },
    price: { price: options.price ?? last.close, volume: 1, timestamp: NOW, tradeId: '1' },
  };
  if (options.last !== undefined) ledger.fired = { [interval]: { [options.last]: true, last: options.last } };
  return ledger;
}

function dailyRow(ledger: SymbolLedger): SetupRow | undefined {
  return setupRow(ledger, 'D', NOW, SECTOR);
}

/** The row's Strat fields, for compact expectations. */
function fields(row: SetupRow | undefined) {
  if (row === undefined) return undefined;
  const { shape, in_force, p3, pmg, continuation } = row;
  return { shape, in_force, p3, pmg, continuation };
}

describe('setup rows: the shape families (docs/strat.md#setup-rows)', () => {
  // Each case: C3 (only to type C2), C2, C1, CC. NOW is inside CC's period.
  it.each<[string, Ohlc[], ReturnType<typeof fields>]>([
    [
      '2-1-2 bullish: 2U then an inside bar, CC breaks its high',
      [
        [100, 101, 99, 100.5],
        [100.5, 103, 99.5, 102.5],
        [102.5, 102.8, 101, 101.5],
        [101.6, 103.2, 101.6, 103],
      ],
      { shape: '2U-1', in_force: true, p3: false, pmg: 103, continuation: false },
    ],
    [
      '2-1-2 bearish: 2D then an inside bar, CC breaks its low',
      [
        [100, 101, 99, 100],
        [100, 100.5, 98, 98.5],
        [98.5, 100, 98.2, 99],
        [99, 99.1, 98.1, 98.1],
      ],
      { shape: '2D-1', in_force: true, p3: false, pmg: 98, continuation: false },
    ],
    [
      '3-1-2: an outside bar, an inside bar, CC breaks the inside bar',
      [
        [100, 101, 99, 100],
        [100, 102, 98, 99],
        [99, 100.5, 98.5, 100],
        [99.8, 99.8, 98.4, 98.4],
      ],
      { shape: '3-1', in_force: true, p3: false, pmg: 98, continuation: false },
    ],
    [
      '1-2-2 (revstrat): an inside bar, a 2D, CC reverses up',
      [
        [100, 102, 98, 101],
        [101, 101.5, 99, 100],
        [100, 101, 98.5, 99],
        [99.2, 101.2, 99.2, 101.2],
      ],
      { shape: '1-2D', in_force: true, p3: false, pmg: 101.5, continuation: false },
    ],
    [
      '2-2 reversal: C1 is 2D, CC goes 2U',
      [
        [100, 101, 99, 100],
        [100, 100.8, 98.5, 99],
        [99, 99.5, 97.5, 98],
        [98.2, 99.7, 98.2, 99.7],
      ],
      { shape: '2D-2D', in_force: true, p3: false, pmg: 100.8, continuation: false },
    ],
    [
      '2-2 continuation: C1 is 2U, CC goes 2U again',
      [
        [103, 104, 102.5, 103.2],
        [100, 101, 99, 100.5],
        [100.5, 101.5, 99.5, 101],
        [101, 102.5, 100, 102],
        [102.1, 102.8, 102.1, 102.8],
      ],
      { shape: '2U-2U', in_force: true, p3: false, pmg: 104, continuation: true },
    ],
    [
      '2-2 continuation down: C1 is 2D, CC goes 2D again',
      [
        [100, 101, 99, 100],
        [100, 100.5, 98, 98.5],
        [98.5, 99, 97, 97.5],
        [97.5, 98, 96.5, 96.5],
      ],
      // No bar within reach is below C1's low: no target.
      { shape: '2D-2D', in_force: true, p3: false, pmg: null, continuation: true },
    ],
    [
      '3-2-2: an outside bar, a 2D, CC reverses up',
      [
        [100, 101, 99, 100],
        [100, 101.5, 98.5, 99.5],
        [99.5, 100.5, 97.8, 98.2],
        [98.3, 100.7, 98.3, 100.7],
      ],
      { shape: '3-2D', in_force: true, p3: false, pmg: 101.5, continuation: false },
    ],
    [
      'not in force: CC inside C1 (equal high and low are not taken out)',
      [
        [100, 101, 99, 100],
        [100, 102, 98, 99],
        [99, 100.5, 98.5, 100],
        [99.8, 100.5, 98.5, 99],
      ],
      { shape: '3-1', in_force: false, p3: false, pmg: null, continuation: false },
    ],
    [
      'p3: CC took out both sides of C1',
      [
        [100, 101, 99, 100],
        [100, 102, 98, 99],
        [99, 100.5, 98.5, 100],
        [99.8, 100.6, 98.4, 100.6],
      ],
      { shape: '3-1', in_force: true, p3: true, pmg: 102, continuation: false },
    ],
    [
      'no continuation: C1 is 2U, CC is a 3',
      [
        [100, 101, 99, 100.5],
        [100.5, 101.5, 99.5, 101],
        [101, 102.5, 100, 102],
        [102, 103, 99, 99],
      ],
      // A 3 without a remembered break: CC closed below C1's midpoint, so the bearish target.
      { shape: '2U-2U', in_force: true, p3: true, pmg: 99.5, continuation: false },
    ],
  ])('%s', (_label, bars, expected) => {
    expect(fields(dailyRow(handLedger(bars)))).toEqual(expected);
  });

  // The documented order: docs/partner-guide.md#setup-row
  it('writes the full row: symbol, timeframe and sector included, fields in the documented order', () => {
    const row = dailyRow(
      handLedger([
        [100, 101, 99, 100],
        [100, 102, 98, 99],
        [99, 100.5, 98.5, 100],
        [99.8, 99.8, 98.4, 98.4],
      ]),
    );
    expect(JSON.stringify(row)).toBe(
      '{"symbol":"AAPL","timeframe":"D","shape":"3-1","in_force":true,"p3":false,"pmg":98,"continuation":false,"sector":"Technology"}',
    );
  });
});

describe('setup rows: which candles (docs/strat.md#the-three-candles-and-now)', () => {
  const C3: Ohlc = [100, 101, 99, 100];
  const C2: Ohlc = [100, 102, 98, 99];
  const C1: Ohlc = [99, 100.5, 98.5, 100];

  it('without CC, C1 is the latest bar: a row that is never in force, p3 or continuation', () => {
    expect(fields(dailyRow(handLedger([C3, C2, C1], { current: false })))).toEqual({
      shape: '3-1',
      in_force: false,
      p3: false,
      pmg: null,
      continuation: false,
    });
  });

  it('a finished CC becomes C1 when its period ends: the shape moves on', () => {
    const cc: Ohlc = [99.8, 101, 98.4, 100.6];
    expect(fields(dailyRow(handLedger([C3, C2, C1, cc], { current: false })))).toEqual({
      shape: '1-3',
      in_force: false,
      p3: false,
      pmg: null,
      continuation: false,
    });
  });

  it.each<[string, Ohlc[], boolean]>([
    ['one bar', [C1], true],
    ['two bars: C1 has a type, C2 has none', [C2, C1], false],
    ['two bars and CC', [C2, C1, C1], true],
    ['a lone CC', [C1], false],
  ])('no row with fewer than three bars before CC: %s', (_label, bars, current) => {
    expect(dailyRow(handLedger(bars, { current }))).toBeUndefined();
  });

  it('no row for a timeframe without a bar, nor for a ledger without recent bars', () => {
    expect(dailyRow({ symbol: SYMBOL, forming: {} })).toBeUndefined();
    const { recent: _recent, ...withoutRecent } = handLedger([C3, C2, C1]);
    expect(dailyRow(withoutRecent)).toBeUndefined();
  });

  it('stratCandles: CC, then C1, C2 ... newest first', () => {
    const ledger = handLedger([C3, C2, C1, [99, 99, 99, 99]]);
    const withCc = stratCandles(ledger, '1d', NOW);
    expect(withCc.cc?.open).toBe(99);
    expect(withCc.history.map((bar) => bar.high)).toEqual([100.5, 102, 101]);
    const after = stratCandles(ledger, '1d', NOW + STEP);
    expect(after.cc).toBeUndefined();
    expect(after.history.map((bar) => bar.high)).toEqual([99, 100.5, 102, 101]);
  });
});

describe('pmg (docs/strat.md#pmg-potential-max-gain)', () => {
  /** n filler bars that never reach past C1 (high 100, low 90), oldest first. */
  const fillers = (n: number): Ohlc[] => Array.from({ length: n }, () => [95, 100, 90, 95] as const);
  const C1: Ohlc = [100, 101, 89, 100];
  const UP: Ohlc = [100, 101.5, 89, 100]; // CC above C1.high only
  const DOWN: Ohlc = [95, 100, 88, 95]; // CC below C1.low only

  it('bullish: the high of the first bar above C1.high, looking back from C2', () => {
    const bars: Ohlc[] = [[100, 105, 95, 100], [100, 103, 95, 100], ...fillers(3), C1, UP];
    expect(dailyRow(handLedger(bars))?.pmg).toBe(103);
  });

  it('bearish mirror: the low of the first bar below C1.low', () => {
    const bars: Ohlc[] = [[95, 100, 80, 95], [95, 100, 85, 95], ...fillers(3), C1, DOWN];
    expect(dailyRow(handLedger(bars))?.pmg).toBe(85);
  });

  it('an equal high or low is not above or below C1', () => {
    const bars: Ohlc[] = [[100, 102, 85, 100], [100, 101, 89, 100], ...fillers(2), C1, UP];
    expect(dailyRow(handLedger(bars))?.pmg).toBe(102);
  });

  it.each([
    ['C11, 10 bars back from C1: found', 9, 104],
    ['C12, 11 bars back: out of reach, null', 10, null],
  ])('the 10-bar limit exactly: a bar above at %s', (_label, fillerCount, expected) => {
    // Bars: [the high bar], fillers..., C1, CC. The high bar is C(fillerCount + 2).
    const bars: Ohlc[] = [[100, 104, 95, 100], ...fillers(fillerCount), C1, UP];
    const ledger = handLedger(bars);
    expect(dailyRow(ledger)?.pmg).toBe(expected);
    // The same on a ledger holding more bars than the fold keeps.
    const longer = handLedger([[100, 110, 95, 100], ...bars]);
    expect(dailyRow(longer)?.pmg).toBe(expected);
  });

  it('null when no bar within 10 is above C1.high', () => {
    expect(dailyRow(handLedger([...fillers(10), C1, UP]))?.pmg).toBeNull();
  });

  it('null while not in force, however many bars are above', () => {
    const bars: Ohlc[] = [[100, 105, 85, 100], ...fillers(3), C1, [95, 100, 90, 95]];
    expect(fields(dailyRow(handLedger(bars)))).toMatchObject({ in_force: false, pmg: null });
  });

  it.each<[Direction, number]>([
    ['bullish', 105],
    ['bearish', 85],
  ])('on a 3, follows the most recent break (%s last)', (last, expected) => {
    const bars: Ohlc[] = [[100, 105, 85, 100], ...fillers(3), C1, [95, 102, 88, 95]];
    const row = dailyRow(handLedger(bars, { last }));
    expect(row).toMatchObject({ in_force: true, p3: true, pmg: expected });
  });

  it('pmgOf works on C1, C2 ... newest first', () => {
    const c1: Bar = { time: 0, open: 1, high: 10, low: 5, close: 1, volume: 0 };
    const above: Bar = { ...c1, high: 12 };
    const below: Bar = { ...c1, low: 3 };
    expect(pmgOf([c1, below, above], 'bullish')).toBe(12);
    expect(pmgOf([c1, below, above], 'bearish')).toBe(3);
    expect(pmgOf([c1], 'bullish')).toBeNull();
    expect(pmgOf([], 'bearish')).toBeNull();
    expect(PMG_LOOKBACK).toBe(10);
  });
});

describe('TFC (docs/strat.md#tfc-timeframe-continuity)', () => {
  it.each([
    [101, 100, 'green'],
    [99, 100, 'red'],
    [100, 100, 'yellow'],
    [0.1 + 0.2, 0.3, 'green'], // exact: 0.30000000000000004 is above 0.3
  ])('price %d against open %d is %s', (price, open, color) => {
    expect(tfcColor(price, open)).toBe(color);
  });

  it('compares the last price with the open of each timeframe’s latest bar, equal is yellow', () => {
    const ledger = handLedger([[100, 101, 99, 100]], { price: 100 });
    ledger.forming['1w'] = { ...(ledger.forming['1d'] as FormingBar), open: 99 };
    ledger.forming['1mo'] = { ...(ledger.forming['1d'] as FormingBar), open: 101 };
    ledger.forming['1m'] = { ...(ledger.forming['1d'] as FormingBar), open: 50 };
    expect(tfcOf(ledger)).toEqual({ D: 'yellow', W: 'green', M: 'red' });
    expect(Object.keys(tfcOf(ledger))).toEqual(['D', 'W', 'M']);
  });

  it('uses the latest bar whether or not its period contains now', () => {
    const ledger = handLedger([[100, 101, 99, 100]], { price: 102, current: false });
    expect(deriveSymbolState(ledger, NOW, SECTOR).tfc).toEqual({ D: 'green' });
  });

  it('is empty without a price or bars', () => {
    expect(tfcOf({ symbol: SYMBOL, forming: {} })).toEqual({});
    const { price: _price, ...withoutPrice } = handLedger([[100, 101, 99, 100]]);
    expect(tfcOf(withoutPrice)).toEqual({});
  });
});

// ---------------------------------------------------------------------------------------------------------
// Real ledgers: folded trades on the calendar.
// ---------------------------------------------------------------------------------------------------------

/** Trade ids, counted from the start in every test. */
const ids = perTestTradeIds();

/** Four trades a session (open, high, low, close at fixed times) from `from` to `to`, a zigzag walk. */
function history(from: string, to: string): Trade[] {
  const trades: Trade[] = [];
  sessionsBetween(from, to).forEach((session, index) => {
    const open = session.open.getTime();
    const close = session.close.getTime();
    const base = 100 + 10 * Math.sin(index / 3) + index / 10;
    const swing = 1 + (index % 4);
    trades.push(
      trade(open + 60_000, base, { ids }),
      trade(open + 3_600_000, base + swing, { ids }),
      trade(close - 3_600_000, base - swing * 0.8, { ids }),
      trade(close - 60_000, base + 0.25, { ids }),
    );
  });
  return trades;
}

function state(ledger: SymbolLedger, at: string | number): SymbolState {
  return deriveSymbolState(ledger, typeof at === 'string' ? ms(at) : at, SECTOR);
}

function rowOf(s: SymbolState, timeframe: Timeframe): SetupRow | undefined {
  return s.setups.find((row) => row.timeframe === timeframe);
}

describe('roll-over without trades: the clock alone moves CC to C1', () => {
  // 2024-01-02 .. Friday 2024-05-17 (not the month's last session).
  const { ledger } = foldTrades(undefined, SYMBOL, history('2024-01-02', '2024-05-17'));

  it('during Friday’s session every timeframe has its CC', () => {
    const at = ms('2024-05-17T19:59:00Z');
    for (const timeframe of ['D', 'W', 'M', 'Q', 'Y'] as const) {
      expect(stratCandles(ledger, TIMEFRAME_INTERVAL[timeframe], at).cc, timeframe).toBeDefined();
    }
  });

  it('after Friday’s close: D and W have no CC (C1 is Friday’s bar, this week’s bar); M, Q, Y still have one', () => {
    const after = ms('2024-05-17T21:00:00Z');
    const day = stratCandles(ledger, '1d', after);
    expect(day.cc).toBeUndefined();
    expect(day.history[0]?.time).toBe(ms('2024-05-17T00:00:00Z') / 1000);
    const week = stratCandles(ledger, '1w', after);
    expect(week.cc).toBeUndefined();
    expect(week.history[0]?.time).toBe(ms('2024-05-13T00:00:00Z') / 1000);
    expect(stratCandles(ledger, '1mo', after).cc?.time).toBe(ms('2024-05-01T00:00:00Z') / 1000);
    expect(stratCandles(ledger, '1q', after).cc).toBeDefined();
    const s = state(ledger, after);
    for (const timeframe of ['15', '30', '60', '4H', 'D', 'W'] as const) {
      expect(rowOf(s, timeframe), timeframe).toMatchObject({ in_force: false, p3: false, pmg: null });
    }
    expect(s.setups.map((row) => row.timeframe)).toEqual(['15', '30', '60', '4H', 'D', 'W', 'M']);
  });

  it('changes the state at the close without a write, and says when', () => {
    const during = state(ledger, '2024-05-17T19:59:00Z');
    const after = state(ledger, '2024-05-17T20:00:00Z');
    expect(equalStates(during, after)).toBe(false);
    expect(rowOf(during, 'D')?.in_force).toBe(true);
    expect(rowOf(after, 'D')?.in_force).toBe(false);
    expect(nextStateChangeMs(ledger, ms('2024-05-17T19:59:00Z'))).toBe(ms('2024-05-17T20:00:00Z'));
    // After the close, the next change without a trade is the month's end (May 31's close).
    expect(nextStateChangeMs(ledger, ms('2024-05-17T20:00:00Z'))).toBe(ms('2024-05-31T20:00:00Z'));
  });

  it('the weekend and the Monday open without a trade give the same state', () => {
    const saturday = state(ledger, '2024-05-18T15:00:00Z');
    const mondayOpen = state(ledger, '2024-05-20T13:30:00Z');
    const mondayLater = state(ledger, '2024-05-20T15:00:00Z');
    expect(stateKey(mondayOpen)).toBe(stateKey(saturday));
    expect(equalStates(mondayLater, saturday)).toBe(true);
  });

  it('the Monday open with a trade: D and W have a new CC, C1 is Friday’s bar and last week’s bar', () => {
    const monday = foldTrades(ledger, SYMBOL, [trade('2024-05-20T13:31:00Z', 105, { ids })]).ledger;
    const at = ms('2024-05-20T13:32:00Z');
    const day = stratCandles(monday, '1d', at);
    expect(day.cc?.time).toBe(ms('2024-05-20T00:00:00Z') / 1000);
    expect(day.history[0]?.time).toBe(ms('2024-05-17T00:00:00Z') / 1000);
    const week = stratCandles(monday, '1w', at);
    expect(week.cc?.time).toBe(ms('2024-05-20T00:00:00Z') / 1000);
    expect(week.history[0]?.time).toBe(ms('2024-05-13T00:00:00Z') / 1000);
  });

  it('after the month’s last session (Friday 2024-05-31), M has no CC either', () => {
    const { ledger: may } = foldTrades(undefined, SYMBOL, history('2024-01-02', '2024-05-31'));
    const after = ms('2024-05-31T20:00:00Z');
    expect(stratCandles(may, '1mo', after).cc).toBeUndefined();
    expect(stratCandles(may, '1mo', after).history[0]?.time).toBe(ms('2024-05-01T00:00:00Z') / 1000);
    expect(stratCandles(may, '1q', after).cc).toBeDefined();
    expect(rowOf(state(may, after), 'M')).toMatchObject({ in_force: false, pmg: null });
  });

  it('CC is exactly the forming bar of the period that contains now (currentPeriod)', () => {
    const instants = fc.integer({ min: ms('2024-05-10T00:00:00Z'), max: ms('2024-06-05T00:00:00Z') });
    fc.assert(
      fc.property(instants, (nowMs) => {
        for (const timeframe of TIMEFRAMES) {
          const interval = TIMEFRAME_INTERVAL[timeframe];
          const forming = ledger.forming[interval] as FormingBar;
          const expected = currentPeriod(interval, nowMs)?.time === forming.time;
          expect(stratCandles(ledger, interval, nowMs).cc !== undefined).toBe(expected);
        }
      }),
    );
  });
});

describe('early-close periods: 2024-11-29 closes at 13:00 New York', () => {
  const { ledger } = foldTrades(undefined, SYMBOL, [
    ...history('2024-09-03', '2024-11-27'),
    trade('2024-11-29T17:50:00Z', 101, { ids }),
  ]);

  it('the 60m bar of 12:30 lasts 30 minutes: CC until 13:00, C1 from 13:00', () => {
    const bar = ledger.forming['60m'];
    expect(bar).toMatchObject({ startMs: ms('2024-11-29T17:30:00Z'), endMs: ms('2024-11-29T18:00:00Z') });
    expect(stratCandles(ledger, '60m', ms('2024-11-29T17:59:59.999Z')).cc).toBe(bar);
    const after = stratCandles(ledger, '60m', ms('2024-11-29T18:00:00Z'));
    expect(after.cc).toBeUndefined();
    expect(after.history[0]).toBe(bar);
  });

  it('everything ending at the early close changes at 13:00; then the quarter’s end is next', () => {
    expect(nextStateChangeMs(ledger, ms('2024-11-29T17:50:00Z'))).toBe(ms('2024-11-29T18:00:00Z'));
    expect(nextStateChangeMs(ledger, ms('2024-11-29T18:00:00Z'))).toBe(ms('2024-12-31T21:00:00Z'));
    const during = state(ledger, '2024-11-29T17:59:59.999Z');
    const after = state(ledger, '2024-11-29T18:00:00Z');
    expect(rowOf(during, '60')?.shape).not.toBe(rowOf(after, '60')?.shape);
  });
});

describe('nextStateChangeMs', () => {
  it('is the end of the earliest period containing now (a 15m bar during the session)', () => {
    const { ledger } = foldTrades(undefined, SYMBOL, [trade('2024-05-15T14:05:00Z', 10, { ids })]);
    expect(nextStateChangeMs(ledger, ms('2024-05-15T14:06:00Z'))).toBe(ms('2024-05-15T14:15:00Z'));
    // Past the 15m end, the 30m bar ends next.
    expect(nextStateChangeMs(ledger, ms('2024-05-15T14:15:00Z'))).toBe(ms('2024-05-15T14:30:00Z'));
  });

  it('is undefined when nothing can change without a trade, or without bars', () => {
    // The week of 2024-12-30 runs to Friday 2025-01-03; everything else ended on 2024-12-31.
    const { ledger } = foldTrades(undefined, SYMBOL, [trade('2024-12-31T15:00:00Z', 10, { ids })]);
    expect(nextStateChangeMs(ledger, ms('2025-01-01T12:00:00Z'))).toBe(ms('2025-01-03T21:00:00Z'));
    expect(nextStateChangeMs(ledger, ms('2025-01-04T12:00:00Z'))).toBeUndefined();
    expect(nextStateChangeMs({ symbol: SYMBOL, forming: {} }, NOW)).toBeUndefined();
  });

  it('is a forming bar’s start when the clock is behind it', () => {
    const { ledger } = foldTrades(undefined, SYMBOL, [trade('2024-05-15T14:05:00Z', 10, { ids })]);
    expect(nextStateChangeMs(ledger, ms('2024-05-15T13:00:00Z'))).toBe(ms('2024-05-15T13:30:00Z'));
  });

  it('no state change happens strictly between now and nextStateChangeMs (property)', () => {
    const { ledger } = foldTrades(undefined, SYMBOL, history('2024-01-02', '2024-05-17'));
    const instants = fc.integer({ min: ms('2024-05-15T00:00:00Z'), max: ms('2024-06-05T00:00:00Z') });
    fc.assert(
      fc.property(instants, fc.double({ min: 0, max: 1, noNaN: true }), (nowMs, fraction) => {
        const next = nextStateChangeMs(ledger, nowMs) ?? ms('2024-07-01T00:00:00Z');
        const between = nowMs + Math.floor((next - 1 - nowMs) * fraction);
        expect(stateKey(state(ledger, between))).toBe(stateKey(state(ledger, nowMs)));
      }),
    );
  });
});

describe('derivedSinceLastPeriodEdge: what the clock tick’s roll leaves unread', () => {
  const { ledger } = foldTrades(undefined, SYMBOL, history('2024-01-02', '2024-05-17'));

  it('counts a state derived on the quarter-hour itself, not one derived a millisecond before', () => {
    expect(derivedSinceLastPeriodEdge(ms('2024-05-15T14:30:00Z'), ms('2024-05-15T14:44:59Z'))).toBe(true);
    expect(derivedSinceLastPeriodEdge(ms('2024-05-15T14:29:59.999Z'), ms('2024-05-15T14:30:00Z'))).toBe(
      false,
    );
  });

  it('every state change the clock makes falls on a quarter-hour (property)', () => {
    const instants = fc.integer({ min: ms('2024-05-10T00:00:00Z'), max: ms('2024-06-05T00:00:00Z') });
    fc.assert(
      fc.property(instants, (nowMs) => {
        const next = nextStateChangeMs(ledger, nowMs);
        if (next !== undefined) expect(next % PERIOD_EDGE_MS).toBe(0);
      }),
    );
  });

  it('a state derived since the last quarter-hour is the state now (property)', () => {
    const instants = fc.integer({ min: ms('2024-05-10T00:00:00Z'), max: ms('2024-06-05T00:00:00Z') });
    fc.assert(
      fc.property(instants, fc.integer({ min: 0, max: PERIOD_EDGE_MS }), (derivedAtMs, laterMs) => {
        const nowMs = derivedAtMs + laterMs;
        if (!derivedSinceLastPeriodEdge(derivedAtMs, nowMs)) return;
        expect(stateKey(state(ledger, nowMs))).toBe(stateKey(state(ledger, derivedAtMs)));
      }),
    );
  });
});

describe('deriveSymbolState and stateKey', () => {
  const { ledger } = foldTrades(undefined, SYMBOL, history('2020-01-02', '2024-05-17'));
  const s = state(ledger, '2024-05-17T19:00:00Z');

  it('gives a row per typed timeframe in timeframe order, and a colour per timeframe with a bar', () => {
    expect(s.setups.map((row) => row.timeframe)).toEqual([...TIMEFRAMES]);
    expect(Object.keys(s.tfc)).toEqual([...TIMEFRAMES]);
    for (const row of s.setups) expect(row).toMatchObject({ symbol: SYMBOL, sector: SECTOR });
  });

  it('works from a ledger read back from storage (a JSON round trip)', () => {
    const stored = JSON.parse(JSON.stringify(ledger)) as SymbolLedger;
    expect(state(stored, '2024-05-17T19:00:00Z')).toEqual(s);
  });

  it('keys equal states equally, whatever their key order, and different states differently', () => {
    const reordered: SymbolState = {
      setups: s.setups.map((row) => ({
        sector: row.sector,
        continuation: row.continuation,
        pmg: row.pmg,
        p3: row.p3,
        in_force: row.in_force,
        shape: row.shape,
        timeframe: row.timeframe,
        symbol: row.symbol,
      })),
      tfc: Object.fromEntries(Object.entries(s.tfc).reverse()),
    };
    expect(stateKey(reordered)).toBe(stateKey(s));
    expect(equalStates(reordered, s)).toBe(true);
    const recoloured: SymbolState = { ...s, tfc: { ...s.tfc, D: s.tfc.D === 'red' ? 'green' : 'red' } };
    expect(equalStates(recoloured, s)).toBe(false);
    const [first, ...rest] = s.setups;
    const changed: SymbolState = { ...s, setups: [{ ...(first as SetupRow), pmg: 1 }, ...rest] };
    expect(equalStates(changed, s)).toBe(false);
    expect(equalStates({ ...s, setups: rest }, s)).toBe(false);
  });
});
