import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TRADE_TIMING } from '#contracts/ingestion';
import {
  type Bar,
  barOf,
  type CompletedBar,
  type FormingBar,
  mergeBars,
  type Trade,
} from '#domain/market-data/bars';
import { INTERVALS, type Interval } from '#domain/market-data/intervals';
import { emptyLedger, type SymbolLedger } from '#domain/market-data/ledger';
import { periodAt } from '#domain/market-data/periods';
import { foldTrades, type TradeFoldResult } from '#domain/strat/trade-fold';
import { perTestTradeIds, trade } from '../../../support/builders.ts';

const SYMBOL = 'AAPL';
const ms = (iso: string): number => Date.parse(iso);
const seconds = (iso: string): number => Date.parse(iso) / 1000;

/** Trade ids, counted from the start in every test. */
const ids = perTestTradeIds();

function fold(trades: readonly Trade[], ledger?: SymbolLedger): TradeFoldResult {
  return foldTrades(ledger, SYMBOL, trades);
}

function formingOf(ledger: SymbolLedger, interval: Interval): FormingBar {
  const bar = ledger.forming[interval];
  if (bar === undefined) throw new Error(`expected a forming ${interval} bar`);
  return bar;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

describe('foldTrades: OHLCV', () => {
  const trades = [
    trade('2024-05-15T13:30:05Z', 100, { size: 10, ids }),
    trade('2024-05-15T13:30:30Z', 101, { size: 5, ids }),
    trade('2024-05-15T13:30:59.999Z', 99.5, { size: 1, ids }),
    trade('2024-05-15T13:31:00Z', 100.5, { size: 2, ids }),
    trade('2024-05-15T13:31:30Z', 100.25, { size: 3, ids }),
  ];
  const result = fold(trades);

  it('completes the first 1m bar when a trade lands in the next minute', () => {
    expect(result.completed).toEqual([
      {
        interval: '1m',
        bar: {
          time: seconds('2024-05-15T13:30:00Z'),
          open: 100,
          high: 101,
          low: 99.5,
          close: 99.5,
          volume: 16,
        },
      },
    ]);
  });

  it('keeps the second 1m bar forming, with its period', () => {
    expect(formingOf(result.ledger, '1m')).toEqual({
      time: seconds('2024-05-15T13:31:00Z'),
      open: 100.5,
      high: 100.5,
      low: 100.25,
      close: 100.25,
      volume: 5,
      startMs: ms('2024-05-15T13:31:00Z'),
      endMs: ms('2024-05-15T13:32:00Z'),
    });
  });

  it('folds all five trades into every longer interval, at its bar time', () => {
    const expected = { open: 100, high: 101, low: 99.5, close: 100.25, volume: 21 };
    const times: Record<Exclude<Interval, '1m'>, string> = {
      '15m': '2024-05-15T13:30:00Z',
      '30m': '2024-05-15T13:30:00Z',
      '60m': '2024-05-15T13:30:00Z',
      '4h': '2024-05-15T13:30:00Z',
      '1d': '2024-05-15T00:00:00Z',
      '1w': '2024-05-13T00:00:00Z',
      '1mo': '2024-05-01T00:00:00Z',
      '1q': '2024-04-01T00:00:00Z',
      '1y': '2024-01-02T00:00:00Z',
    };
    for (const [interval, time] of Object.entries(times) as [Interval, string][]) {
      expect(barOf(formingOf(result.ledger, interval))).toEqual({ time: seconds(time), ...expected });
    }
    expect(Object.keys(result.ledger.forming)).toEqual([...INTERVALS]);
  });

  it('keeps the last trade as the latest price and the watermark', () => {
    const last = trades[4] as Trade;
    expect(result.ledger.price).toEqual({
      price: 100.25,
      volume: 3,
      timestamp: last.timestamp,
      tradeId: last.tradeId,
    });
    expect(result.ledger.lastTrade).toEqual({ timestamp: last.timestamp, tradeId: last.tradeId });
    expect(result).toMatchObject({ applied: 5, duplicates: 0, outsideSession: 0, invalid: 0 });
  });

  it('starts from nothing with an undefined ledger, or an empty one', () => {
    expect(fold(trades, emptyLedger(SYMBOL))).toEqual(result);
    expect(fold([])).toEqual({
      ledger: { symbol: SYMBOL, forming: {} },
      completed: [],
      applied: 0,
      latePrints: 0,
      duplicates: 0,
      late: 0,
      latePositions: [],
      outsideSession: 0,
      invalid: 0,
      unpriced: 0,
      inForce: [],
      appliedMarks: new Uint8Array(0),
    });
  });
});

describe('foldTrades: deduplication', () => {
  const batchA = [
    trade('2024-05-15T14:00:00Z', 50, { size: 100, ids }),
    trade('2024-05-15T14:00:10Z', 51, { size: 200, ids }),
    trade('2024-05-15T14:01:10Z', 52, { size: 300, ids }),
  ];
  const batchB = [
    trade('2024-05-15T14:02:00Z', 49, { size: 400, ids }),
    trade('2024-05-15T14:02:01Z', 48, { size: 500, ids }),
  ];

  it('never counts a redelivered batch twice', () => {
    const first = fold(batchA);
    const again = fold(batchA, first.ledger);
    expect(again.ledger).toEqual(first.ledger);
    // The last is in the late-print window (a duplicate); the two before are older than it (late).
    expect(again).toMatchObject({ completed: [], applied: 0, duplicates: 1, late: 2 });
    expect(formingOf(again.ledger, '1d').volume).toBe(600);
  });

  it('folds A then A+B like A+B at once, refusing A the second time', () => {
    const first = fold(batchA);
    const overlap = fold([...batchA, ...batchB], first.ledger);
    const once = fold([...batchA, ...batchB]);
    expect(overlap.ledger).toEqual(once.ledger);
    expect([...first.completed, ...overlap.completed]).toEqual(once.completed);
    expect(overlap).toMatchObject({ applied: 2, duplicates: 1, late: 2 });
    expect(formingOf(overlap.ledger, '1d').volume).toBe(1500);
  });

  it('applies every distinct trade of one millisecond, in stream order ("10" after "9")', () => {
    const at = '2024-05-15T15:00:00Z';
    const result = fold([
      trade(at, 10, { size: 1, tradeId: '9' }),
      trade(at, 11, { size: 1, tradeId: '10' }),
      trade(at, 12, { size: 1, tradeId: '9' }),
    ]);
    expect(result).toMatchObject({ applied: 2, duplicates: 1 });
    expect(result.ledger.lastTrade).toEqual({ timestamp: ms(at), tradeId: '10' });
    expect(formingOf(result.ledger, '1m')).toMatchObject({ open: 10, close: 11, volume: 2 });
  });

  it('applies a tie at the watermark that arrives in a later batch, once', () => {
    const at = '2024-05-15T15:00:00Z';
    const first = fold([trade(at, 10, { size: 1, tradeId: '9' })]);
    const tie = fold([trade(at, 11, { size: 2, tradeId: '10' })], first.ledger);
    const again = fold(
      [trade(at, 11, { size: 2, tradeId: '10' }), trade(at, 10, { size: 1, tradeId: '9' })],
      tie.ledger,
    );
    expect(tie).toMatchObject({ applied: 1, duplicates: 0 });
    expect(formingOf(tie.ledger, '1m')).toMatchObject({ close: 11, volume: 3 });
    expect(again).toMatchObject({ applied: 0, duplicates: 2 });
    expect(again.ledger).toEqual(tie.ledger);
  });
});

describe('foldTrades: late prints (docs/candles.md#late-and-early-prints)', () => {
  const inOrder = [
    trade('2024-05-15T14:00:58Z', 50, { size: 100, ids }),
    trade('2024-05-15T14:01:01Z', 51, { size: 200, ids }),
    trade('2024-05-15T14:01:02Z', 52, { size: 300, ids }),
  ];

  it('folds a print up to the tolerance late into the high, low and volume of the bars still forming', () => {
    const first = fold(inOrder);
    const late = fold(
      [
        trade('2024-05-15T14:00:59Z', 60, { size: 7, ids }),
        trade('2024-05-15T14:01:00Z', 40, { size: 5, ids }),
      ],
      first.ledger,
    );
    expect(late).toMatchObject({ applied: 0, latePrints: 2, duplicates: 0, late: 0 });
    // The 14:01 minute holds the second print; the 14:00 minute is complete and stays as it was.
    expect(formingOf(late.ledger, '1m')).toMatchObject({
      open: 51,
      high: 52,
      low: 40,
      close: 52,
      volume: 505,
    });
    expect(formingOf(late.ledger, '1d')).toMatchObject({
      open: 50,
      high: 60,
      low: 40,
      close: 52,
      volume: 612,
    });
    expect(late.completed).toEqual([]);
    expect(late.ledger.price).toEqual(first.ledger.price);
    expect(late.ledger.lastTrade).toEqual(first.ledger.lastTrade);
  });

  it('counts a late print once, however often it is delivered', () => {
    const first = fold(inOrder);
    const print = trade('2024-05-15T14:01:00.500Z', 51.5, { size: 9, ids });
    const once = fold([print], first.ledger);
    const twice = fold([print, print], once.ledger);
    expect(twice).toMatchObject({ latePrints: 0, duplicates: 2 });
    expect(formingOf(twice.ledger, '1d').volume).toBe(609);
  });

  it('refuses a print older than the tolerance, and counts it as late', () => {
    const first = fold(inOrder);
    const stale = fold([trade('2024-05-15T14:00:56.999Z', 99, { size: 1000, ids })], first.ledger);
    expect(stale).toMatchObject({ applied: 0, latePrints: 0, duplicates: 0, late: 1, latePositions: [0] });
    expect(stale.ledger).toEqual(first.ledger);
  });

  it('counts a late print outside every session as outside the session', () => {
    const first = fold([trade('2024-05-15T13:30:02Z', 50, { size: 1, ids })]);
    const early = fold([trade('2024-05-15T13:29:59Z', 49, { size: 1, ids })], first.ledger);
    expect(early).toMatchObject({ latePrints: 0, outsideSession: 1 });
  });

  it('remembers at most the cap of trade ids, forgetting whole milliseconds and refusing what it forgot', () => {
    const busy: Trade[] = [];
    for (let index = 0; index < TRADE_TIMING.rememberedTradeIds + 10; index++) {
      busy.push(trade(ms('2024-05-15T14:00:00Z') + Math.floor(index / 4), 50, { size: 1, ids }));
    }
    const { ledger } = fold(busy);
    const window = ledger.recentTrades;
    expect(window?.tradeIds.length).toBeLessThanOrEqual(TRADE_TIMING.rememberedTradeIds);
    expect(window?.timestamps.every((timestamp) => timestamp > (window?.afterMs ?? 0))).toBe(true);
    const again = fold(busy, ledger);
    expect(again).toMatchObject({ applied: 0, latePrints: 0 });
    expect(again.duplicates + again.late).toBe(busy.length);
  });

  it('applies nothing at or before the watermark of a ledger stored without the window', () => {
    const first = fold(inOrder);
    const { recentTrades: _dropped, ...legacy } = first.ledger;
    const at = inOrder[2]?.timestamp ?? 0;
    const result = fold(
      [
        trade(at, 53, { size: 1, tradeId: 'zz' }),
        trade(at - 500, 53, { size: 1, ids }),
        trade(at + 1, 54, { size: 1, ids }),
      ],
      legacy,
    );
    expect(result).toMatchObject({ applied: 1, late: 2 });
  });
});

describe('foldTrades: ignored trades', () => {
  it.each([
    ['pre-market', '2024-05-15T13:29:59.999Z'],
    ['at the close', '2024-05-15T20:00:00Z'],
    ['after hours', '2024-05-15T22:00:00Z'],
    ['after an early close', '2024-11-29T18:00:00Z'],
    ['Saturday', '2024-05-18T15:00:00Z'],
    ['Memorial Day', '2024-05-27T15:00:00Z'],
  ])('ignores a trade outside every session: %s', (_label, at) => {
    const before = fold([trade('2024-05-14T19:00:00Z', 10, { size: 5, ids })]);
    const result = fold([trade(at, 1_000, { size: 1_000, ids })], before.ledger);
    expect(result).toMatchObject({ applied: 0, outsideSession: 1, completed: [] });
    expect(result.ledger).toEqual(before.ledger);
  });

  it.each<[string, Partial<Trade>]>([
    ['zero price', { price: 0 }],
    ['negative price', { price: -1 }],
    ['NaN price', { price: Number.NaN }],
    ['infinite price', { price: Number.POSITIVE_INFINITY }],
    ['negative size', { size: -1 }],
    ['NaN size', { size: Number.NaN }],
    ['infinite size', { size: Number.POSITIVE_INFINITY }],
    ['NaN timestamp', { timestamp: Number.NaN }],
    ['timestamp before 1990', { timestamp: ms('1989-06-01T15:00:00Z') }],
    ['timestamp after 2099', { timestamp: ms('2100-06-01T15:00:00Z') }],
    ['another symbol', { symbol: 'MSFT' }],
    ['trade id not a string', { tradeId: 42 as unknown as string }],
    ['price not a number', { price: '10' as unknown as number }],
    ['size not a number', { size: '10' as unknown as number }],
    ['timestamp not a number', { timestamp: '2024-05-15T15:00:00Z' as unknown as number }],
  ])('ignores an invalid trade: %s', (_label, change) => {
    const result = fold([{ ...trade('2024-05-15T15:00:00Z', 10, { size: 5, ids }), ...change }]);
    expect(result).toMatchObject({ applied: 0, invalid: 1, outsideSession: 0, duplicates: 0 });
    expect(result.ledger).toEqual(emptyLedger(SYMBOL));
  });

  it('applies a zero-size trade (price moves, volume does not)', () => {
    const result = fold([
      trade('2024-05-15T15:00:00Z', 10, { size: 5, ids }),
      trade('2024-05-15T15:00:01Z', 11, { size: 0, ids }),
    ]);
    expect(result.applied).toBe(2);
    expect(formingOf(result.ledger, '1m')).toMatchObject({ high: 11, close: 11, volume: 5 });
    expect(result.ledger.price).toMatchObject({ price: 11, volume: 0 });
  });

  it('keeps valid trades around ignored ones', () => {
    const result = fold([
      trade('2024-05-15T13:00:00Z', 1, { size: 1, ids }),
      trade('2024-05-15T14:00:00Z', 10, { size: 5, ids }),
      trade('2024-05-15T14:00:01Z', -3, { size: 5, ids }),
      trade('2024-05-15T14:00:02Z', 12, { size: 7, ids }),
      trade('2024-05-15T21:00:00Z', 99, { size: 9, ids }),
    ]);
    expect(result).toMatchObject({ applied: 2, invalid: 1, outsideSession: 2 });
    expect(barOf(formingOf(result.ledger, '1d'))).toMatchObject({
      open: 10,
      high: 12,
      low: 10,
      close: 12,
      volume: 12,
    });
    expect(result.ledger.price?.price).toBe(12);
  });

  it('refuses another symbol’s ledger', () => {
    expect(() => foldTrades(emptyLedger('MSFT'), SYMBOL, [])).toThrow(RangeError);
  });
});

describe('foldTrades: rolling periods', () => {
  const names = (completed: readonly CompletedBar[]) => completed.map((c) => c.interval);

  it('emits the 1m bars of a batch oldest first', () => {
    const result = fold([
      trade('2024-05-15T14:00:00Z', 1, { size: 1, ids }),
      trade('2024-05-15T14:01:00Z', 2, { size: 1, ids }),
      trade('2024-05-15T14:02:00Z', 3, { size: 1, ids }),
      trade('2024-05-15T14:05:00Z', 4, { size: 1, ids }),
    ]);
    expect(result.completed.map((c) => [c.interval, c.bar.time, c.bar.close])).toEqual([
      ['1m', seconds('2024-05-15T14:00:00Z'), 1],
      ['1m', seconds('2024-05-15T14:01:00Z'), 2],
      ['1m', seconds('2024-05-15T14:02:00Z'), 3],
    ]);
  });

  it('completes the intraday and daily bars on the next session, not the week', () => {
    const day1 = fold([trade('2024-05-15T19:59:59Z', 10, { size: 1, ids })]);
    const day2 = fold([trade('2024-05-16T13:30:00Z', 11, { size: 1, ids })], day1.ledger);
    expect(names(day2.completed)).toEqual(['1m', '15m', '30m', '60m', '4h', '1d']);
    expect(formingOf(day2.ledger, '1w')).toMatchObject({ open: 10, close: 11, volume: 2 });
  });

  it('completes the week and the month on Monday 2024-06-03 after Friday 2024-05-31, not the quarter', () => {
    const friday = fold([trade('2024-05-31T15:00:00Z', 10, { size: 1, ids })]);
    const monday = fold([trade('2024-06-03T15:00:00Z', 11, { size: 1, ids })], friday.ledger);
    expect(names(monday.completed)).toEqual(['1m', '15m', '30m', '60m', '4h', '1d', '1w', '1mo']);
    expect(formingOf(monday.ledger, '1q')).toMatchObject({
      time: seconds('2024-04-01T00:00:00Z'),
      volume: 2,
    });
  });

  it('completes the year on the first session of 2025, keeping the week that spans both years', () => {
    const dec31 = fold([trade('2024-12-31T20:59:59Z', 10, { size: 1, ids })]);
    const jan2 = fold([trade('2025-01-02T14:30:00Z', 11, { size: 1, ids })], dec31.ledger);
    expect(names(jan2.completed)).toEqual(['1m', '15m', '30m', '60m', '4h', '1d', '1mo', '1q', '1y']);
    expect(formingOf(jan2.ledger, '1w')).toMatchObject({ time: seconds('2024-12-30T00:00:00Z'), volume: 2 });
    expect(formingOf(jan2.ledger, '1y')).toMatchObject({ time: seconds('2025-01-02T00:00:00Z'), volume: 1 });
  });

  it('cuts the 4h and 60m bars at an early close', () => {
    const result = fold([trade('2024-11-29T17:59:00Z', 10, { size: 1, ids })]);
    expect(formingOf(result.ledger, '4h')).toMatchObject({
      startMs: ms('2024-11-29T14:30:00Z'),
      endMs: ms('2024-11-29T18:00:00Z'),
    });
    expect(formingOf(result.ledger, '60m')).toMatchObject({
      startMs: ms('2024-11-29T17:30:00Z'),
      endMs: ms('2024-11-29T18:00:00Z'),
    });
  });

  it('keeps a finished bar in the ledger until a later trade moves it out', () => {
    const result = fold([
      trade('2024-05-15T19:59:59Z', 10, { size: 1, ids }),
      trade('2024-05-15T20:30:00Z', 11, { size: 1, ids }),
    ]);
    expect(result.completed).toEqual([]);
    expect(formingOf(result.ledger, '1d').close).toBe(10);
  });
});

describe('foldTrades: purity', () => {
  it('does not mutate its input ledger or trades', () => {
    const start = fold([
      trade('2024-05-15T14:00:00Z', 10, { size: 1, ids }),
      trade('2024-05-15T14:00:30Z', 11, { size: 2, ids }),
    ]);
    const ledger = deepFreeze(structuredClone(start.ledger));
    const trades = deepFreeze([
      trade('2024-05-15T14:00:40Z', 12, { size: 3, ids }),
      trade('2024-05-15T14:03:00Z', 9, { size: 4, ids }),
    ]);
    const snapshot = structuredClone(ledger);
    const result = fold(trades, ledger);
    expect(ledger).toEqual(snapshot);
    expect(result.ledger).not.toBe(ledger);
    expect(formingOf(result.ledger, '1d')).toMatchObject({ high: 12, low: 9, volume: 10 });
    // The result shares no object with the input.
    expect(result.ledger.forming['1d']).not.toBe(ledger.forming['1d']);
    expect(fold([], ledger).ledger.price).not.toBe(ledger.price);
  });

  it('continues from a ledger read back from storage (a JSON round trip)', () => {
    const batchA = [
      trade('2024-05-15T14:00:00Z', 10, { size: 1, ids }),
      trade('2024-05-15T14:00:30Z', 11, { size: 2, ids }),
    ];
    const batchB = [
      trade('2024-05-15T14:00:40Z', 12, { size: 3, ids }),
      trade('2024-05-16T14:03:00Z', 9, { size: 4, ids }),
    ];
    const stored = JSON.parse(JSON.stringify(fold(batchA).ledger)) as SymbolLedger;
    const resumed = fold(batchB, stored);
    const once = fold([...batchA, ...batchB]);
    expect(resumed.ledger).toEqual(once.ledger);
  });

  it('opens the bar of an interval missing from the ledger at the next trade', () => {
    const { ledger } = fold([trade('2024-05-15T14:00:00Z', 10, { size: 1, ids })]);
    const { '1w': _week, ...withoutWeek } = ledger.forming;
    const result = fold([trade('2024-05-15T14:00:10Z', 11, { size: 2, ids })], {
      ...ledger,
      forming: withoutWeek,
    });
    expect(barOf(formingOf(result.ledger, '1w'))).toEqual({
      time: seconds('2024-05-13T00:00:00Z'),
      open: 11,
      high: 11,
      low: 11,
      close: 11,
      volume: 2,
    });
    expect(formingOf(result.ledger, '1d')).toMatchObject({ open: 10, close: 11, volume: 3 });
  });
});

describe('mergeBars and barOf', () => {
  it('merges the earlier and later parts of a period', () => {
    const earlier: Bar = { time: 100, open: 10, high: 12, low: 9, close: 11, volume: 5 };
    const later: Bar = { time: 160, open: 11, high: 13, low: 10, close: 12, volume: 7 };
    expect(mergeBars(earlier, later)).toEqual({
      time: 100,
      open: 10,
      high: 13,
      low: 9,
      close: 12,
      volume: 12,
    });
  });

  it('strips the period bounds', () => {
    const forming: FormingBar = {
      time: 1,
      open: 2,
      high: 3,
      low: 1,
      close: 2,
      volume: 4,
      startMs: 1000,
      endMs: 2000,
    };
    expect(barOf(forming)).toEqual({ time: 1, open: 2, high: 3, low: 1, close: 2, volume: 4 });
  });
});

// ---------------------------------------------------------------------------------------------------------
// Properties.
// ---------------------------------------------------------------------------------------------------------

/** First days of the generated streams (each spans up to 11 days from its first). */
const FIRST_DAYS = [
  '2024-06-27', // quarter end, July 3 early close, July 4
  '2024-11-26', // Thanksgiving, early close, month end
  '2024-12-27', // year end, a week across years
  '2024-03-06', // spring DST
  '2024-10-30', // autumn DST, month end
  '2024-01-11', // MLK week
].map((date) => ms(`${date}T00:00:00Z`));

const MS_PER_DAY = 86_400_000;
const at = (time: string) => ms(`1970-01-01T${time}Z`);

/** Times of day around the sessions (13:30Z/14:30Z open, 17:00Z/18:00Z early close, 20:00Z/21:00Z close). */
const timesOfDay = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: at('13:00:00'), max: at('21:30:00') }) },
  { weight: 3, arbitrary: fc.integer({ min: at('15:00:00'), max: at('15:03:00') }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      ...[
        ['13:29:59.999', '13:30:00', '14:29:59.999', '14:30:00', '16:59:59.999', '17:00:00', '17:59:59.999'],
        ['18:00:00', '19:59:59.999', '20:00:00', '20:59:59.999', '21:00:00'],
      ]
        .flat()
        .map(at),
    ),
  },
);

/** Time-ordered trades over a few days: mostly in sessions, some outside, some in the same minute. */
const tradeStreams = fc
  .tuple(
    fc.constantFrom(...FIRST_DAYS),
    fc.array(
      fc.record({
        day: fc.integer({ min: 0, max: 10 }),
        timeOfDay: timesOfDay,
        cents: fc.integer({ min: 1, max: 50_000 }),
        size: fc.integer({ min: 0, max: 1_000 }),
      }),
      { maxLength: 150, size: 'max' },
    ),
  )
  .map(([firstDay, events]) =>
    events
      .map(({ day, timeOfDay, cents, size }) => ({
        timestamp: firstDay + day * MS_PER_DAY + timeOfDay,
        cents,
        size,
      }))
      .sort((a, b) => a.timestamp - b.timestamp)
      .map(
        ({ timestamp, cents, size }, index): Trade => ({
          symbol: SYMBOL,
          price: cents / 100,
          size,
          timestamp,
          tradeId: String(index).padStart(6, '0'),
        }),
      ),
  );

/** Fold batch by batch, carrying the ledger. */
function foldInBatches(batches: readonly (readonly Trade[])[]) {
  let ledger: SymbolLedger | undefined;
  const completed: CompletedBar[] = [];
  let applied = 0;
  for (const batch of batches) {
    const result = foldTrades(ledger, SYMBOL, batch);
    ledger = result.ledger;
    completed.push(...result.completed);
    applied += result.applied;
  }
  return { ledger: ledger ?? emptyLedger(SYMBOL), completed, applied };
}

function splitAt(trades: readonly Trade[], cuts: readonly number[]): Trade[][] {
  const points = [...new Set(cuts.map((cut) => cut % (trades.length + 1)))].sort((a, b) => a - b);
  const batches: Trade[][] = [];
  let from = 0;
  for (const point of [...points, trades.length]) {
    batches.push(trades.slice(from, point));
    from = point;
  }
  return batches;
}

/** Every bar of an interval, oldest first: the completed ones, then the forming one. */
function barsOf(interval: Interval, completed: readonly CompletedBar[], ledger: SymbolLedger): Bar[] {
  const bars = completed.filter((c) => c.interval === interval).map((c) => c.bar);
  const forming = ledger.forming[interval];
  return forming === undefined ? bars : [...bars, barOf(forming)];
}

/** The reference: group the in-session trades by period and fold each group naively. */
function referenceBars(interval: Interval, trades: readonly Trade[]): Bar[] {
  const bars: Bar[] = [];
  for (const t of trades) {
    const period = periodAt(interval, t.timestamp);
    if (period === undefined) continue;
    const last = bars.at(-1);
    if (last !== undefined && last.time === period.time) {
      last.high = Math.max(last.high, t.price);
      last.low = Math.min(last.low, t.price);
      last.close = t.price;
      last.volume += t.size;
    } else {
      bars.push({
        time: period.time,
        open: t.price,
        high: t.price,
        low: t.price,
        close: t.price,
        volume: t.size,
      });
    }
  }
  return bars;
}

describe('foldTrades: properties', () => {
  it('(a) any split into batches gives the same ledger and completed bars as one batch', () => {
    fc.assert(
      fc.property(tradeStreams, fc.array(fc.nat(), { maxLength: 8 }), (trades, cuts) => {
        const once = fold(trades);
        const batched = foldInBatches(splitAt(trades, cuts));
        expect(batched.ledger).toEqual(once.ledger);
        expect(batched.completed).toEqual(once.completed);
        expect(batched.applied).toBe(once.applied);
      }),
    );
  });

  it('(b) redelivering any earlier batch again changes nothing', () => {
    fc.assert(
      fc.property(
        tradeStreams,
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat()), { maxLength: 6 }),
        (trades, cuts, redeliveries) => {
          const once = fold(trades);
          const batches = splitAt(trades, cuts);
          const delivered: Trade[][] = [];
          let consumed = 0;
          for (const [index, batch] of batches.entries()) {
            delivered.push(batch);
            consumed += batch.length;
            for (const [after, from, length] of redeliveries) {
              if (after % batches.length !== index || consumed === 0) continue;
              const start = from % consumed;
              delivered.push(trades.slice(start, Math.min(consumed, start + (length % 50) + 1)));
            }
          }
          const replayed = foldInBatches(delivered);
          expect(replayed.ledger).toEqual(once.ledger);
          expect(replayed.completed).toEqual(once.completed);
          expect(replayed.applied).toBe(once.applied);
        },
      ),
    );
  });

  it('(c) every bar is its trades: low <= open, close <= high; volume = sum of sizes (against a naive reference)', () => {
    fc.assert(
      fc.property(tradeStreams, (trades) => {
        const { ledger, completed } = fold(trades);
        for (const interval of INTERVALS) {
          const bars = barsOf(interval, completed, ledger);
          expect(bars).toEqual(referenceBars(interval, trades));
          for (const bar of bars) {
            expect(bar.low).toBeLessThanOrEqual(Math.min(bar.open, bar.close));
            expect(bar.high).toBeGreaterThanOrEqual(Math.max(bar.open, bar.close));
          }
          const volume = bars.reduce((sum, bar) => sum + bar.volume, 0);
          const inSession = trades.filter((t) => periodAt('1m', t.timestamp) !== undefined);
          expect(volume).toBe(inSession.reduce((sum, t) => sum + t.size, 0));
        }
      }),
    );
  });

  it('(d) the bar of every interval is the merge of its 1m bars (the 1d bar of a session included)', () => {
    fc.assert(
      fc.property(tradeStreams, (trades) => {
        const { ledger, completed } = fold(trades);
        const minutes = barsOf('1m', completed, ledger);
        for (const interval of INTERVALS) {
          const merged = new Map<number, Bar>();
          for (const minute of minutes) {
            const period = periodAt(interval, minute.time * 1000);
            if (period === undefined) throw new Error('a 1m bar outside every session');
            const sofar = merged.get(period.time);
            merged.set(
              period.time,
              sofar === undefined ? { ...minute, time: period.time } : mergeBars(sofar, minute),
            );
          }
          expect(barsOf(interval, completed, ledger)).toEqual([...merged.values()]);
        }
      }),
    );
  });
});

describe('foldTrades: volume-only trades (sale conditions that count in volume alone)', () => {
  const volumeOnly = (at: string, price: number, size: number): Trade =>
    trade(at, price, { size, ids, volumeOnly: true });

  it('adds the size to every forming bar and moves no price, high, low, close or latest price', () => {
    const result = fold([
      trade('2024-05-15T13:30:05Z', 100, { size: 10, ids }),
      volumeOnly('2024-05-15T13:30:10Z', 150, 3),
      volumeOnly('2024-05-15T13:30:20Z', 50, 4),
    ]);
    for (const interval of INTERVALS) {
      expect(barOf(formingOf(result.ledger, interval))).toMatchObject({
        open: 100,
        high: 100,
        low: 100,
        close: 100,
        volume: 17,
      });
    }
    expect(result.ledger.price).toMatchObject({
      price: 100,
      volume: 10,
      timestamp: ms('2024-05-15T13:30:05Z'),
    });
    expect(result.applied).toBe(3);
  });

  it('advances the watermark, so a redelivered volume-only trade is a duplicate', () => {
    const odd = volumeOnly('2024-05-15T13:30:10Z', 150, 3);
    const first = fold([trade('2024-05-15T13:30:05Z', 100, { size: 10, ids }), odd]);
    expect(first.ledger.lastTrade).toEqual({ timestamp: odd.timestamp, tradeId: odd.tradeId });
    const again = fold([odd], first.ledger);
    expect(again.duplicates).toBe(1);
    expect(formingOf(again.ledger, '1m').volume).toBe(13);
  });

  it('opens a new period at the last sale price without moving it', () => {
    const result = fold([
      trade('2024-05-15T13:30:05Z', 100, { size: 10, ids }),
      volumeOnly('2024-05-15T13:31:10Z', 180, 2),
      trade('2024-05-15T13:31:20Z', 101, { size: 1, ids }),
    ]);
    expect(barOf(formingOf(result.ledger, '1m'))).toEqual({
      time: seconds('2024-05-15T13:31:00Z'),
      open: 100,
      high: 101,
      low: 100,
      close: 101,
      volume: 3,
    });
    expect(formingOf(result.ledger, '1d').volume).toBe(13);
    expect(result.ledger.price?.price).toBe(101);
  });

  it('counts a volume-only trade of a symbol with no last sale as unpriced and applies nothing', () => {
    const result = fold([volumeOnly('2024-05-15T13:30:05Z', 100, 5)]);
    expect(result.unpriced).toBe(1);
    expect(result.applied).toBe(0);
    expect(result.ledger.forming).toEqual({});
    expect(result.ledger.price).toBeUndefined();
  });

  it('folds a volume-only late print into the volume alone', () => {
    const first = fold([
      trade('2024-05-15T13:30:05Z', 100, { size: 10, ids }),
      trade('2024-05-15T13:30:08Z', 100, { size: 1, ids }),
    ]);
    const late = fold([volumeOnly('2024-05-15T13:30:06Z', 300, 7)], first.ledger);
    expect(late.latePrints).toBe(1);
    expect(barOf(formingOf(late.ledger, '1m'))).toMatchObject({
      high: 100,
      low: 100,
      close: 100,
      volume: 18,
    });
  });
});
