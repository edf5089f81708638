import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { sessionAt, sessionOn, sessionsBetween } from '#domain/calendar/sessions';
import { newYorkDate } from '#domain/calendar/time-zone';
import type { Trade } from '#domain/market-data/bars';
import type { Instrument } from '#domain/market-data/instruments';
import { UNIVERSE_CSV } from '#scripts/lib/project';
import { parseUniverseCsv } from '#scripts/lib/universe';
import { sessionAtOrAfter } from '#scripts/simulator/market';
import {
  createHistory,
  createMarketModel,
  defaultStartPrice,
  type HistoryDensity,
  historyTrades,
  type MarketModelOptions,
  profileOf,
} from '#scripts/simulator/model';
import { hashString, Random, streamKey } from '#scripts/simulator/random';
import { roundToTick } from '#scripts/simulator/trades';

const UNIVERSE: readonly Instrument[] = parseUniverseCsv(readFileSync(UNIVERSE_CSV, 'utf8'));
const ms = (iso: string): number => Date.parse(iso);
const FUTURES = ['ES1!', 'NQ1!', 'RTY1!', 'YM1!'];
const ETFS = ['SPY', 'QQQ', 'IWM', 'DIA'];
const INDEX_PRODUCTS = [...FUTURES, ...ETFS];

function instruments(...symbols: string[]): Instrument[] {
  return symbols.map((symbol) => {
    const found = UNIVERSE.find((instrument) => instrument.symbol === symbol);
    if (found === undefined) throw new Error(`${symbol} is not in the universe`);
    return found;
  });
}

function bySymbol(trades: readonly Trade[]): Map<string, Trade[]> {
  const grouped = new Map<string, Trade[]>();
  for (const trade of trades) {
    const list = grouped.get(trade.symbol);
    if (list === undefined) grouped.set(trade.symbol, [trade]);
    else list.push(trade);
  }
  return grouped;
}

function tickOf(symbol: string): number {
  return profileOf(instruments(symbol)[0] as Instrument).tick;
}

function isOnTick(price: number, tick: number): boolean {
  const ticks = price / tick;
  const decimals = tick >= 1 ? 0 : tick === 0.25 ? 2 : Math.round(-Math.log10(tick));
  return Math.abs(ticks - Math.round(ticks)) < 1e-9 && price === Number(price.toFixed(decimals));
}

function correlation(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  let meanA = 0;
  let meanB = 0;
  for (let i = 0; i < n; i++) {
    meanA += (a[i] ?? 0) / n;
    meanB += (b[i] ?? 0) / n;
  }
  let covariance = 0;
  let varianceA = 0;
  let varianceB = 0;
  for (let i = 0; i < n; i++) {
    const da = (a[i] ?? 0) - meanA;
    const db = (b[i] ?? 0) - meanB;
    covariance += da * db;
    varianceA += da * da;
    varianceB += db * db;
  }
  return covariance / Math.sqrt(varianceA * varianceB);
}

/** Annualized standard deviation of log returns between consecutive closes (252 a year). */
function annualizedVol(closes: readonly number[]): number {
  const returns = closes.slice(1).map((close, i) => Math.log(close / (closes[i] ?? close)));
  const mean = returns.reduce((sum, r) => sum + r, 0) / returns.length;
  const variance = returns.reduce((sum, r) => sum + (r - mean) ** 2, 0) / (returns.length - 1);
  return Math.sqrt(variance * 252);
}

/** Trades not strictly after their predecessor in (timestamp, tradeId) order, ids compared as strings. */
function disorders(trades: readonly Trade[]): Trade[] {
  return trades.filter((current, i) => {
    const previous = trades[i - 1];
    return (
      previous !== undefined &&
      (current.timestamp < previous.timestamp || !(current.tradeId > previous.tradeId))
    );
  });
}

interface Bar {
  high: number;
  low: number;
}

type StratType = '1' | '2U' | '2D' | '3';

function stratType(previous: Bar, current: Bar): StratType {
  const higherHigh = current.high > previous.high;
  const lowerLow = current.low < previous.low;
  if (higherHigh && lowerLow) return '3';
  if (higherHigh) return '2U';
  return lowerLow ? '2D' : '1';
}

/** Bars of a coarser period (week, month) from daily bars, by a key of the session date. */
function rollUp(days: readonly SessionSummary[], keyOf: (date: string) => string): Bar[] {
  const bars = new Map<string, Bar>();
  for (const day of days) {
    const key = keyOf(day.date);
    const bar = bars.get(key);
    if (bar === undefined) bars.set(key, { high: day.high, low: day.low });
    else {
      bar.high = Math.max(bar.high, day.high);
      bar.low = Math.min(bar.low, day.low);
    }
  }
  return [...bars.values()];
}

function isoWeekKey(date: string): string {
  const day = new Date(`${date}T12:00:00Z`);
  const weekday = (day.getUTCDay() + 6) % 7;
  return new Date(day.getTime() - weekday * 86_400_000).toISOString().slice(0, 10);
}

// ---------------------------------------------------------------------------------------------------------

describe('random', () => {
  it('sfc32: the same seed gives the same numbers, another seed others, all in [0, 1)', () => {
    const draw = (seed: number) => {
      const random = new Random(seed);
      return Array.from({ length: 1000 }, () => random.next());
    };
    expect(draw(7)).toEqual(draw(7));
    expect(draw(7)).not.toEqual(draw(8));
    for (const value of draw(9)) {
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThan(1);
    }
  });

  it('Box-Muller normals have mean 0 and standard deviation 1', () => {
    const random = new Random(11);
    const n = 100_000;
    let sum = 0;
    let squares = 0;
    for (let i = 0; i < n; i++) {
      const z = random.normal();
      sum += z;
      squares += z * z;
    }
    expect(Math.abs(sum / n)).toBeLessThan(0.02);
    expect(Math.abs(Math.sqrt(squares / n) - 1)).toBeLessThan(0.02);
  });

  it('stream keys tell their parts apart, including both halves of millisecond instants', () => {
    const start = ms('2024-11-26T14:30:00Z');
    expect(streamKey(1, start)).not.toBe(streamKey(1, start + 2 ** 32));
    expect(streamKey(1, start, 'AAPL')).not.toBe(streamKey(2, start, 'AAPL'));
    expect(streamKey(1, start, 'AAPL')).not.toBe(streamKey(1, start, 'AAPM'));
    expect(hashString('ES1!')).toBe(hashString('ES1!'));
  });
});

describe('starting prices and profiles', () => {
  const level = (symbol: string) => defaultStartPrice(instruments(symbol)[0] as Instrument);

  it('starts the index products and the largest names at well-known levels', () => {
    expect(level('SPY')).toBe(590);
    expect(level('QQQ')).toBe(510);
    expect(level('IWM')).toBe(225);
    expect(level('DIA')).toBe(440);
    expect(level('ES1!')).toBe(5950);
    expect(level('NQ1!')).toBe(20900);
    expect(level('RTY1!')).toBe(2250);
    expect(level('YM1!')).toBe(44000);
    expect(level('AAPL')).toBe(230);
    expect(level('MSFT')).toBe(420);
    expect(level('NVDA')).toBe(140);
    expect(level('BRK.B')).toBe(470);
    expect(level('JPM')).toBe(240);
  });

  it('keeps the index products consistent with each other', () => {
    expect(level('ES1!') / level('SPY')).toBeCloseTo(10.08, 1);
    expect(level('NQ1!') / level('QQQ')).toBeCloseTo(41, 0);
    expect(level('RTY1!') / level('IWM')).toBeCloseTo(10, 1);
    expect(level('YM1!') / level('DIA')).toBeCloseTo(100, 0);
  });

  it('gives every other symbol a stable level, log-uniform in [20, 600), spread out', () => {
    const levels = UNIVERSE.map((instrument) => profileOf(instrument).startPrice);
    for (const price of levels) {
      expect(price).toBeGreaterThanOrEqual(20);
      expect(price).toBeLessThan(45_000);
    }
    const hashed = UNIVERSE.filter((i) => i.type === 'CS').map((i) => profileOf(i).startPrice);
    expect(new Set(hashed).size).toBeGreaterThan(450);
    const logs = hashed.map(Math.log).sort((a, b) => a - b);
    const median = Math.exp(logs[Math.floor(logs.length / 2)] ?? 0);
    expect(median).toBeGreaterThan(60);
    expect(median).toBeLessThan(200);
    expect(UNIVERSE.map((i) => profileOf(i))).toEqual(UNIVERSE.map((i) => profileOf(i)));
  });

  it('sets ticks, kinds, activity and volatility by instrument', () => {
    expect(FUTURES.map(tickOf)).toEqual([0.25, 0.25, 0.1, 1]);
    expect(tickOf('SPY')).toBe(0.01);
    expect(tickOf('AAPL')).toBe(0.01);
    for (const instrument of UNIVERSE) {
      const profile = profileOf(instrument);
      if (INDEX_PRODUCTS.includes(instrument.symbol)) {
        expect(profile.kind).toBe(instrument.type === 'FUT' ? 'future' : 'etf');
        expect(profile.meanIntervalMs).toBeGreaterThanOrEqual(1000);
        expect(profile.meanIntervalMs).toBeLessThanOrEqual(2000);
      } else {
        expect(profile.kind).toBe('stock');
        expect(profile.meanIntervalMs).toBeGreaterThanOrEqual(3000);
        expect(profile.meanIntervalMs).toBeLessThanOrEqual(8000);
        const totalVol = Math.hypot(profile.beta * 0.16, profile.idioVol);
        expect(totalVol).toBeGreaterThan(0.15);
        expect(totalVol).toBeLessThan(0.6);
      }
    }
  });

  it('rounds to the tick with exact decimals', () => {
    expect(roundToTick(5950.13, 0.25)).toBe(5950.25);
    expect(roundToTick(2250.04, 0.1)).toBe(2250);
    expect(roundToTick(2250.06, 0.1)).toBe(2250.1);
    expect(roundToTick(44_000.6, 1)).toBe(44_001);
    expect(roundToTick(0.3 * 3, 0.01)).toBe(0.9);
    expect(roundToTick(0.001, 0.01)).toBe(0.01);
  });
});

// ---------------------------------------------------------------------------------------------------------

describe('live model: the Thanksgiving week 2024', () => {
  // Wed 2024-11-27 15:00Z (10:00 New York) .. Mon 2024-12-02 15:30Z: a full afternoon, Thanksgiving,
  // the 13:00 early close on Friday, a weekend, Monday's pre-market and open.
  const startMs = ms('2024-11-27T15:00:00Z');
  const endMs = ms('2024-12-02T15:30:00Z');
  const symbols = instruments(...INDEX_PRODUCTS, 'AAPL', 'MSFT', 'A', 'ZTS');
  const trades: Trade[] = [];

  beforeAll(() => {
    const model = createMarketModel({ seed: 42, symbols, startMs });
    // In uneven steps, as a driver on a sped-up clock would.
    for (let t = startMs; t < endMs; t += 7 * 60_000 + 13_000) trades.push(...model.advance(t));
    trades.push(...model.advance(endMs));
  }, 60_000);

  it('trades every symbol, only inside regular sessions', () => {
    expect(new Set(trades.map((trade) => trade.symbol))).toEqual(new Set(symbols.map((i) => i.symbol)));
    const outside = trades.filter(
      (trade) =>
        sessionAt(new Date(trade.timestamp)) === undefined ||
        trade.timestamp < startMs ||
        trade.timestamp >= endMs,
    );
    expect(outside).toEqual([]);
  });

  it('has no trade on the holiday, after 13:00 on the early close, on the weekend, or pre-market', () => {
    const dates = new Set(trades.map((trade) => newYorkDate(new Date(trade.timestamp))));
    expect([...dates].sort()).toEqual(['2024-11-27', '2024-11-29', '2024-12-02']);
    const friday = trades.filter((trade) => newYorkDate(new Date(trade.timestamp)) === '2024-11-29');
    expect(Math.min(...friday.map((t) => t.timestamp))).toBeGreaterThanOrEqual(ms('2024-11-29T14:30:00Z'));
    expect(Math.max(...friday.map((t) => t.timestamp))).toBeLessThan(ms('2024-11-29T18:00:00Z'));
    expect(Math.max(...friday.map((t) => t.timestamp))).toBeGreaterThan(ms('2024-11-29T17:59:00Z'));
    const monday = trades.filter((trade) => newYorkDate(new Date(trade.timestamp)) === '2024-12-02');
    expect(Math.min(...monday.map((t) => t.timestamp))).toBeGreaterThanOrEqual(ms('2024-12-02T14:30:00Z'));
    expect(Math.min(...monday.map((t) => t.timestamp))).toBeLessThan(ms('2024-12-02T14:30:05Z'));
  });

  it('returns trades in time order, each symbol in (timestamp, tradeId) order with unique ids', () => {
    expect(
      trades.filter((trade, i) => i > 0 && trade.timestamp < (trades[i - 1] as Trade).timestamp),
    ).toEqual([]);
    for (const list of bySymbol(trades).values()) {
      expect(disorders(list)).toEqual([]);
      expect(new Set(list.map((trade) => trade.tradeId)).size).toBe(list.length);
    }
  });

  it('makes trade ids of the form sim-<timestamp>-<start>-<seed>-<sequence>', () => {
    const first = bySymbol(trades).get('ES1!')?.[0];
    expect(first?.tradeId).toBe(`sim-${first?.timestamp}-${startMs}-0000002a-000000001`);
    const malformed = trades.filter(
      (trade) =>
        !/^sim-\d{13}-\d{13}-[0-9a-f]{8}-\d{9}$/.test(trade.tradeId) ||
        trade.tradeId.slice(4, 17) !== String(trade.timestamp),
    );
    expect(malformed).toEqual([]);
  });

  it('prices every trade on its tick', () => {
    const ticks = new Map(symbols.map((i) => [i.symbol, profileOf(i).tick]));
    expect(trades.filter((trade) => !isOnTick(trade.price, ticks.get(trade.symbol) ?? 0))).toEqual([]);
    const es = bySymbol(trades).get('ES1!') ?? [];
    expect(es.some((trade) => trade.price % 1 === 0.25 || trade.price % 1 === 0.75)).toBe(true);
  });

  it('sizes: futures 1-20 contracts, stocks and ETFs mostly round lots with some odd lots', () => {
    const badSizes = trades.filter(
      (trade) =>
        !Number.isInteger(trade.size) ||
        trade.size <= 0 ||
        (FUTURES.includes(trade.symbol) && trade.size > 20),
    );
    expect(badSizes).toEqual([]);
    const futureSizes = new Set(trades.filter((t) => FUTURES.includes(t.symbol)).map((t) => t.size));
    expect(futureSizes.has(1) && futureSizes.has(20)).toBe(true);
    const shares = trades.filter((trade) => !FUTURES.includes(trade.symbol));
    const roundLots = shares.filter((trade) => trade.size % 100 === 0).length / shares.length;
    expect(roundLots).toBeGreaterThan(0.8);
    expect(roundLots).toBeLessThan(0.95);
  });

  it('trades futures and ETFs every 1-2 s of session time, stocks every 3-8 s', () => {
    const sessionMs = ms('2024-11-27T21:00:00Z') - startMs + 3.5 * 3_600_000 + 3_600_000;
    for (const [symbol, list] of bySymbol(trades)) {
      const meanInterval = sessionMs / list.length;
      if (INDEX_PRODUCTS.includes(symbol)) {
        expect(meanInterval, symbol).toBeGreaterThan(700);
        expect(meanInterval, symbol).toBeLessThan(2500);
      } else {
        expect(meanInterval, symbol).toBeGreaterThan(2000);
        expect(meanInterval, symbol).toBeLessThan(9000);
      }
    }
  });

  it('is busier near the open and the close than at midday', () => {
    const model = createMarketModel({
      seed: 3,
      symbols: instruments(...INDEX_PRODUCTS),
      startMs: ms('2024-11-26T14:30:00Z'),
    });
    const day = model.advance(ms('2024-11-26T21:00:00Z'));
    const countIn = (from: string, to: string) =>
      day.filter((trade) => trade.timestamp >= ms(from) && trade.timestamp < ms(to)).length;
    const open = countIn('2024-11-26T14:30:00Z', '2024-11-26T15:00:00Z');
    const midday = countIn('2024-11-26T17:00:00Z', '2024-11-26T17:30:00Z');
    const close = countIn('2024-11-26T20:30:00Z', '2024-11-26T21:00:00Z');
    expect(open).toBeGreaterThan(1.5 * midday);
    expect(close).toBeGreaterThan(1.3 * midday);
  });
});

describe('live model: determinism', () => {
  const options: MarketModelOptions = {
    seed: 7,
    symbols: instruments('ES1!', 'SPY', 'AAPL', 'NVDA'),
    startMs: ms('2024-11-26T15:00:00Z'),
  };
  const run = (overrides: Partial<MarketModelOptions>, toMs = ms('2024-11-26T15:30:00Z')) =>
    createMarketModel({ ...options, ...overrides }).advance(toMs);

  it('same seed, same trades; another seed, other trades', () => {
    const first = run({});
    expect(first.length).toBeGreaterThan(3000);
    expect(run({})).toEqual(first);
    const other = run({ seed: 8 });
    expect(other).not.toEqual(first);
    expect(other.map((trade) => trade.timestamp)).not.toEqual(first.map((trade) => trade.timestamp));
    expect(other.at(-1)?.price).not.toBe(first.at(-1)?.price);
  });

  it("a symbol's trades do not depend on which other symbols are simulated", () => {
    const alone = run({ symbols: instruments('ES1!') });
    const withOthers = run({ symbols: UNIVERSE }).filter((trade) => trade.symbol === 'ES1!');
    expect(withOthers).toEqual(alone);
  });

  it('rejects a seed that is not an integer and a start that is not an instant', () => {
    expect(() => createMarketModel({ ...options, seed: 1.5 })).toThrow(RangeError);
    expect(() => createMarketModel({ ...options, startMs: Number.NaN })).toThrow(RangeError);
    expect(() => createMarketModel(options).advance(Number.NaN)).toThrow(RangeError);
  });

  it('any split of a time span into advance calls gives the same trades (property)', () => {
    // 2024-11-26 15:50 New York .. 11-27 09:40: a close, a night and an open.
    const from = ms('2024-11-26T20:50:00Z');
    const to = ms('2024-11-27T14:40:00Z');
    const symbols = instruments('ES1!', 'QQQ', 'AAPL');
    const whole = createMarketModel({ seed: 5, symbols, startMs: from }).advance(to);
    expect(whole.length).toBeGreaterThan(1000);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: from, max: to }), { maxLength: 12 }), (cuts) => {
        const model = createMarketModel({ seed: 5, symbols, startMs: from });
        const pieces = [...cuts].sort((a, b) => a - b).flatMap((cut) => model.advance(cut));
        pieces.push(...model.advance(to));
        const key = (trade: Trade) => `${trade.symbol}|${trade.tradeId}`;
        expect(pieces.map(key).sort()).toEqual(whole.map(key).sort());
        for (const symbol of ['ES1!', 'QQQ', 'AAPL']) {
          expect(pieces.filter((t) => t.symbol === symbol)).toEqual(whole.filter((t) => t.symbol === symbol));
        }
      }),
      { numRuns: 25 },
    );
  }, 60_000);

  it('for any seed and start, trades only in sessions, in order, on the tick (property)', () => {
    const symbols = instruments('RTY1!', 'IWM', 'NVDA');
    const ticks = new Map(symbols.map((i) => [i.symbol, profileOf(i).tick]));
    fc.assert(
      fc.property(
        fc.integer({ min: -(2 ** 40), max: 2 ** 40 }),
        fc.integer({ min: ms('2024-01-01T00:00:00Z'), max: ms('2024-12-31T00:00:00Z') }),
        (seed, startMs) => {
          const model = createMarketModel({ seed, symbols, startMs });
          const trades = model.advance(startMs + 4 * 3_600_000);
          expect(trades.filter((trade) => sessionAt(new Date(trade.timestamp)) === undefined)).toEqual([]);
          expect(trades.filter((trade) => !isOnTick(trade.price, ticks.get(trade.symbol) ?? 0))).toEqual([]);
          for (const list of bySymbol(trades).values()) expect(disorders(list)).toEqual([]);
        },
      ),
      { numRuns: 30 },
    );
  }, 60_000);
});

describe('live model: prices', () => {
  it('moves ES1! and NQ1! together: 1-minute returns over a session correlate above 0.7', () => {
    const open = ms('2024-11-26T14:30:00Z');
    const model = createMarketModel({ seed: 1, symbols: instruments('ES1!', 'NQ1!', 'SPY'), startMs: open });
    const closes: Record<string, number[]> = { 'ES1!': [], 'NQ1!': [], SPY: [] };
    for (let minute = 1; minute <= 390; minute++) {
      model.advance(open + minute * 60_000);
      for (const symbol of Object.keys(closes)) closes[symbol]?.push(Math.log(model.price(symbol) ?? 1));
    }
    const returns = (symbol: string) => {
      const series = closes[symbol] ?? [];
      return series.slice(1).map((value, i) => value - (series[i] ?? value));
    };
    expect(correlation(returns('ES1!'), returns('NQ1!'))).toBeGreaterThan(0.7);
    expect(correlation(returns('ES1!'), returns('SPY'))).toBeGreaterThan(0.9);
    // ES stays about 10 x SPY.
    expect((model.price('ES1!') ?? 0) / (model.price('SPY') ?? 1)).toBeCloseTo(10.08, 1);
  }, 30_000);

  it('gives index futures a realistic daily volatility (a month of daily closes, annualized 8-35%)', () => {
    const startMs = ms('2024-10-01T13:00:00Z');
    const model = createMarketModel({ seed: 2, symbols: instruments('ES1!'), startMs });
    const closes: Record<string, number[]> = { 'ES1!': [] };
    for (const session of sessionsBetween('2024-10-01', '2024-11-29')) {
      model.advance(session.close.getTime());
      for (const symbol of Object.keys(closes)) closes[symbol]?.push(model.price(symbol) ?? 0);
    }
    for (const series of Object.values(closes)) {
      expect(annualizedVol(series)).toBeGreaterThan(0.08);
      expect(annualizedVol(series)).toBeLessThan(0.35);
    }
  }, 60_000);

  it('honours start prices, and falls back to the default level for invalid ones', () => {
    const startMs = ms('2024-11-26T15:00:00Z');
    const startPrices = new Map([
      ['ES1!', 6123.5],
      ['AAPL', 251.17],
      ['MSFT', Number.NaN],
      ['NVDA', -3],
    ]);
    const model = createMarketModel({
      seed: 9,
      symbols: instruments('ES1!', 'AAPL', 'MSFT', 'NVDA'),
      startMs,
      startPrices,
    });
    expect(model.price('ES1!')).toBe(6123.5);
    expect(model.price('AAPL')).toBe(251.17);
    expect(model.price('MSFT')).toBe(420);
    expect(model.price('NVDA')).toBe(140);
    expect(model.price('ZZZZ')).toBeUndefined();
    const trades = bySymbol(model.advance(startMs + 60_000));
    expect(Math.abs((trades.get('ES1!')?.[0]?.price ?? 0) / 6123.5 - 1)).toBeLessThan(0.002);
    expect(Math.abs((trades.get('AAPL')?.[0]?.price ?? 0) / 251.17 - 1)).toBeLessThan(0.005);
  });

  it("never reuses an earlier run's trade ids, even over the same time span", () => {
    const symbols = instruments('ES1!', 'AAPL');
    const first = createMarketModel({ seed: 4, symbols, startMs: ms('2024-11-26T15:00:00Z') });
    const firstTrades = first.advance(ms('2024-11-26T16:00:00Z'));
    const startPrices = new Map(symbols.map((i) => [i.symbol, first.price(i.symbol) ?? 0]));
    // A restart continuing from the stored prices; a second one whose clock was set back an hour.
    const later = createMarketModel({ seed: 4, symbols, startMs: ms('2024-11-26T16:00:00Z'), startPrices });
    const setBack = createMarketModel({
      seed: 4,
      symbols,
      startMs: ms('2024-11-26T15:00:00Z') + 1,
      startPrices,
    });
    const ids = new Set(firstTrades.map((trade) => trade.tradeId));
    for (const trade of [
      ...later.advance(ms('2024-11-26T17:00:00Z')),
      ...setBack.advance(ms('2024-11-26T16:00:00Z')),
    ]) {
      expect(ids.has(trade.tradeId)).toBe(false);
    }
    // At the same millisecond, the later run's id sorts after the earlier run's.
    const a = `sim-1732640400000-${ms('2024-11-26T15:00:00Z')}-00000004-000009999`;
    const b = `sim-1732640400000-${ms('2024-11-26T16:00:00Z')}-00000004-000000001`;
    expect(b > a).toBe(true);
  });
});

describe('live model: big jumps', () => {
  it('skips a weekend in one call, with no trades, and resumes at the next open', () => {
    const model = createMarketModel({ seed: 1, symbols: UNIVERSE, startMs: ms('2024-11-29T17:59:00Z') });
    const lastMinute = model.advance(ms('2024-11-29T18:00:00Z'));
    expect(lastMinute.length).toBeGreaterThan(5000);
    const weekend = model.advance(ms('2024-12-02T14:29:59.999Z'));
    expect(weekend).toEqual([]);
    const opening = model.advance(ms('2024-12-02T14:30:01Z'));
    expect(opening.length).toBeGreaterThan(100);
    for (const trade of opening) expect(trade.timestamp).toBeGreaterThanOrEqual(ms('2024-12-02T14:30:00Z'));
  });

  it('advances 10 minutes of market time for the whole universe in one call', () => {
    const startMs = ms('2024-11-26T17:00:00Z');
    const model = createMarketModel({ seed: 1, symbols: UNIVERSE, startMs });
    const trades = model.advance(startMs + 10 * 60_000);
    expect(trades.length).toBeGreaterThan(40_000);
    expect(new Set(trades.map((trade) => trade.symbol)).size).toBe(UNIVERSE.length);
  }, 30_000);

  it('jumps from the evening into the middle of the next session like small steps would', () => {
    const symbols = instruments('NQ1!', 'MSFT');
    const startMs = ms('2024-11-26T22:00:00Z');
    const jump = createMarketModel({ seed: 6, symbols, startMs }).advance(ms('2024-11-27T16:00:00Z'));
    const steps = createMarketModel({ seed: 6, symbols, startMs });
    const stepped: Trade[] = [];
    for (let t = startMs + 1000; t <= ms('2024-11-27T16:00:00Z'); t += 1000)
      stepped.push(...steps.advance(t));
    expect(stepped).toEqual(jump);
    expect(sessionAtOrAfter(startMs)?.date).toBe('2024-11-27');
    expect(createMarketModel({ seed: 6, symbols, startMs }).advance(startMs)).toEqual([]);
  }, 30_000);
});

// ---------------------------------------------------------------------------------------------------------

interface SessionSummary {
  date: string;
  density: HistoryDensity;
  count: number;
  firstMs: number;
  lastMs: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

describe('history: a year before 2024-11-27 (sparse, then medium, then dense)', () => {
  const fromMs = ms('2023-11-27T05:00:00Z');
  const toMs = ms('2024-11-27T05:00:00Z');
  const densityFor = (date: string): HistoryDensity =>
    date >= '2024-11-13' ? 'dense' : date >= '2024-10-23' ? 'medium' : 'sparse';
  const KEPT = ['ES1!', 'SPY', 'AAPL', 'A'];
  const summaries = new Map<string, SessionSummary[]>();
  const kept = new Map<string, Trade[]>();
  const lastPrices = new Map<string, number>();
  const lastTrades = new Map<string, Trade>();
  let tradeCount = 0;
  let outsideSessions = 0;

  beforeAll(() => {
    const history = createHistory({ seed: 2024, symbols: UNIVERSE, fromMs, toMs, densityFor });
    for (const symbol of history.symbols) {
      const days: SessionSummary[] = [];
      const keep: Trade[] = [];
      let sessionCloseMs = Number.NEGATIVE_INFINITY;
      const generator = history.historyFor(symbol);
      for (let step = generator.next(); ; step = generator.next()) {
        if (step.done) {
          if (step.value !== undefined) lastPrices.set(symbol, step.value);
          break;
        }
        const trade = step.value;
        tradeCount += 1;
        if (KEPT.includes(symbol)) keep.push(trade);
        const day = days.at(-1);
        if (day === undefined || trade.timestamp >= sessionCloseMs) {
          // Each symbol's trades come in time order: a new day starts past the current session's close.
          const session = sessionAt(new Date(trade.timestamp));
          if (session === undefined) {
            outsideSessions += 1;
            continue;
          }
          sessionCloseMs = session.close.getTime();
          const { date } = session;
          const { price } = trade;
          days.push({
            date,
            density: densityFor(date),
            count: 1,
            firstMs: trade.timestamp,
            lastMs: trade.timestamp,
            open: price,
            high: price,
            low: price,
            close: price,
            volume: trade.size,
          });
        } else {
          day.count += 1;
          day.lastMs = trade.timestamp;
          day.high = Math.max(day.high, trade.price);
          day.low = Math.min(day.low, trade.price);
          day.close = trade.price;
          day.volume += trade.size;
        }
        lastTrades.set(symbol, trade);
      }
      summaries.set(symbol, days);
      if (keep.length > 0) kept.set(symbol, keep);
    }
  }, 120_000);

  it('generates a year of 511 symbols, sparse with three weeks medium and two dense', () => {
    expect(summaries.size).toBe(UNIVERSE.length);
    expect(tradeCount).toBeGreaterThan(1_000_000);
  });

  it('covers every session of the range, and only sessions', () => {
    const dates = sessionsBetween('2023-11-27', '2024-11-26').map((session) => session.date);
    for (const [symbol, days] of summaries) {
      expect(
        days.map((day) => day.date),
        symbol,
      ).toEqual(dates);
    }
    expect(outsideSessions).toBe(0);
    for (const trades of kept.values()) {
      const outside = trades.filter((trade) => trade.timestamp < fromMs || trade.timestamp >= toMs);
      expect(outside).toEqual([]);
    }
  });

  it('gives each session 6-8 (sparse), about 39 (medium) or about 195 (dense) trades', () => {
    const bounds: Record<HistoryDensity, [number, number]> = {
      sparse: [6, 8],
      medium: [30, 45],
      dense: [150, 240],
    };
    const seen = new Set<HistoryDensity>();
    const outOfBounds: string[] = [];
    for (const [symbol, days] of summaries) {
      for (const day of days) {
        const [min, max] = bounds[day.density];
        if (day.count < min || day.count > max) outOfBounds.push(`${symbol} ${day.date} ${day.count}`);
        seen.add(day.density);
      }
    }
    expect(outOfBounds).toEqual([]);
    expect([...seen].sort()).toEqual(['dense', 'medium', 'sparse']);
  });

  it('opens every session with a trade at the open and closes it with one in its last minute', () => {
    const misplaced: string[] = [];
    for (const [symbol, days] of summaries) {
      for (const day of days) {
        const openMs = sessionOn(day.date)?.open.getTime() ?? 0;
        const closeMs = sessionOn(day.date)?.close.getTime() ?? 0;
        if (day.firstMs !== openMs || day.lastMs < closeMs - 60_000 || day.lastMs >= closeMs) {
          misplaced.push(`${symbol} ${day.date}`);
        }
      }
    }
    expect(misplaced).toEqual([]);
  });

  it("orders each symbol's trades with increasing hist- ids, on the tick", () => {
    for (const [symbol, trades] of kept) {
      expect(disorders(trades)).toEqual([]);
      const tick = tickOf(symbol);
      const bad = trades.filter(
        (trade) =>
          !/^hist-\d{13}-\d{13}-[0-9a-f]{8}-\d{9}$/.test(trade.tradeId) ||
          !isOnTick(trade.price, tick) ||
          !Number.isInteger(trade.size) ||
          trade.size <= 0,
      );
      expect(bad).toEqual([]);
    }
  });

  it('has realistic volatility: index products 8-35% a year, stocks mostly 15-60%', () => {
    const vols = new Map(
      [...summaries].map(([symbol, days]) => [symbol, annualizedVol(days.map((d) => d.close))]),
    );
    for (const symbol of INDEX_PRODUCTS) {
      expect(vols.get(symbol), symbol).toBeGreaterThan(0.08);
      expect(vols.get(symbol), symbol).toBeLessThan(0.35);
    }
    const stocks = [...vols].filter(([symbol]) => !INDEX_PRODUCTS.includes(symbol)).map(([, vol]) => vol);
    stocks.sort((a, b) => a - b);
    expect(stocks[Math.floor(stocks.length * 0.05)]).toBeGreaterThan(0.15);
    expect(stocks[Math.floor(stocks.length * 0.5)]).toBeGreaterThan(0.22);
    expect(stocks[Math.floor(stocks.length * 0.5)]).toBeLessThan(0.45);
    expect(stocks[Math.floor(stocks.length * 0.95)]).toBeLessThan(0.7);
  });

  it('has daily ranges of realistic size (median 1-4% for stocks) and session volumes like the live model', () => {
    const ranges = [...summaries]
      .filter(([symbol]) => !INDEX_PRODUCTS.includes(symbol))
      .flatMap(([, days]) => days.map((day) => Math.log(day.high / day.low)))
      .sort((a, b) => a - b);
    const median = ranges[Math.floor(ranges.length / 2)] ?? 0;
    expect(median).toBeGreaterThan(0.01);
    expect(median).toBeLessThan(0.04);
    // AAPL trades every 3 s of session time, 237 shares on average: about 1.85 million shares a day.
    for (const day of summaries.get('AAPL') ?? []) {
      if (sessionOn(day.date)?.earlyClose) continue;
      expect(day.volume).toBeGreaterThan(600_000);
      expect(day.volume).toBeLessThan(6_000_000);
    }
  });

  it('makes Strat candles of every type (1, 2U, 2D, 3) on daily, weekly and monthly bars', () => {
    const count = (bars: readonly Bar[], counts: Record<StratType, number>) => {
      for (let i = 1; i < bars.length; i++) counts[stratType(bars[i - 1] as Bar, bars[i] as Bar)] += 1;
    };
    const empty = (): Record<StratType, number> => ({ '1': 0, '2U': 0, '2D': 0, '3': 0 });
    const daily = empty();
    const weekly = empty();
    const monthly = empty();
    for (const days of summaries.values()) {
      count(days, daily);
      count(rollUp(days, isoWeekKey), weekly);
      count(
        rollUp(days, (date) => date.slice(0, 7)),
        monthly,
      );
    }
    for (const counts of [daily, weekly, monthly]) {
      for (const type of ['1', '2U', '2D', '3'] as const) expect(counts[type], type).toBeGreaterThan(0);
    }
    // Daily: inside and outside days are the minority, as in real markets.
    const total = Object.values(daily).reduce((sum, n) => sum + n, 0);
    expect(daily['1'] / total).toBeGreaterThan(0.04);
    expect(daily['1'] / total).toBeLessThan(0.25);
    expect(daily['3'] / total).toBeGreaterThan(0.03);
    expect(daily['3'] / total).toBeLessThan(0.25);
    // Every type also shows up on one symbol's daily bars.
    const spy = empty();
    count(summaries.get('SPY') ?? [], spy);
    for (const type of ['1', '2U', '2D', '3'] as const) expect(spy[type], type).toBeGreaterThan(0);
  });

  it("returns each symbol's last price, with the index products ending near their default levels", () => {
    expect(lastPrices.size).toBe(UNIVERSE.length);
    for (const [symbol, trade] of lastTrades) expect(lastPrices.get(symbol)).toBe(trade.price);
    for (const symbol of INDEX_PRODUCTS) {
      const level = defaultStartPrice(instruments(symbol)[0] as Instrument);
      expect(Math.abs((lastPrices.get(symbol) ?? 0) / level - 1), symbol).toBeLessThan(0.005);
    }
  });

  it('hands over to the live model: it continues from the last prices', () => {
    const symbols = instruments('ES1!', 'SPY', 'QQQ', 'AAPL', 'A');
    const model = createMarketModel({ seed: 2024, symbols, startMs: toMs, startPrices: lastPrices });
    for (const { symbol } of symbols) expect(model.price(symbol)).toBe(lastPrices.get(symbol));
    const firstMinute = bySymbol(model.advance(ms('2024-11-27T14:31:00Z')));
    for (const { symbol } of symbols) {
      const first = firstMinute.get(symbol)?.[0];
      expect(first, symbol).toBeDefined();
      // An overnight gap, and no more: within 3%.
      expect(Math.abs((first?.price ?? 0) / (lastPrices.get(symbol) ?? 1) - 1), symbol).toBeLessThan(0.03);
      expect((first?.tradeId ?? '') > (lastTrades.get(symbol)?.tradeId ?? '')).toBe(true);
    }
  });
});

describe('history: details', () => {
  const base = {
    seed: 3,
    symbols: instruments('ES1!', 'AAPL', 'NVDA'),
    fromMs: ms('2024-11-18T00:00:00Z'),
    toMs: ms('2024-11-26T17:00:00Z'),
    densityFor: (): HistoryDensity => 'medium',
  };

  it("is deterministic, and a symbol's history does not depend on the others or their order", () => {
    const once = historyTrades(base);
    expect(historyTrades(base)).toEqual(once);
    const history = createHistory({ ...base, symbols: instruments('NVDA', 'AAPL') });
    const aapl = [...history.historyFor('AAPL')];
    expect(aapl).toEqual(once.trades.filter((trade) => trade.symbol === 'AAPL'));
    expect([...history.historyFor('AAPL')]).toEqual(aapl);
    expect(historyTrades({ ...base, seed: 4 }).trades).not.toEqual(once.trades);
  });

  it('stops at toMs inside a session, with its last trade in the minute before', () => {
    const { trades, lastPrices } = historyTrades(base);
    for (const [symbol, list] of bySymbol(trades)) {
      const last = list.at(-1) as Trade;
      expect(last.timestamp).toBeLessThan(base.toMs);
      expect(last.timestamp).toBeGreaterThanOrEqual(base.toMs - 60_000);
      expect(lastPrices.get(symbol)).toBe(last.price);
    }
    const history = createHistory(base);
    expect(history.sessionDates).toEqual(sessionsBetween('2024-11-18', '2024-11-26').map((s) => s.date));
  });

  it('rejects an unknown symbol and returns nothing for a range without sessions', () => {
    const history = createHistory(base);
    expect(() => history.historyFor('ZZZZ').next()).toThrow(RangeError);
    const weekend = historyTrades({
      ...base,
      fromMs: ms('2024-11-23T00:00:00Z'),
      toMs: ms('2024-11-25T00:00:00Z'),
    });
    expect(weekend.trades).toEqual([]);
    expect(weekend.lastPrices.size).toBe(0);
  });
});
