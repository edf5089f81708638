/**
 * History for the local stack's first start: the trades of the past months, with the live model's
 * dynamics (market.ts) but far fewer trades, so a year of 500 symbols takes a second, not hours.
 *
 * Per session, a symbol's price path is sampled once per bucket of session time (one sample exactly at the
 * open, one in the session's last minute, one at a random instant of every bucket in between), then:
 * - 'dense': every sample is a trade; buckets of 2 minutes (195 trades in a full session);
 * - 'medium': every sample is a trade; buckets of 10 minutes (39 trades);
 * - 'sparse': the medium samples, of which 6-8 become trades: the open, the last-minute close, the
 *   session's high and low (at the times they happened), and a few more at random. So the daily bar has a
 *   realistic range (about 90% of the continuous path's), and an intraday chart a plausible shape.
 * Each history trade stands for the volume traded since the previous one (the live model's expected trade
 * count times its mean size, with noise), so bar volumes look like the live model's.
 *
 * Prices are anchored to the end of the range: index products end where the live model starts by default
 * (SPY near 590, ES1! near 5950), stocks near their default levels (their own random walk aside).
 *
 * Memory stays bounded: `historyFor(symbol)` yields one symbol's trades at a time; each call starts the
 * symbol over from its own random stream, so symbols can be generated in any order, or some not at all.
 */
import type { Trade } from '#domain/market-data/bars';
import { activityShareAt, factorExposure, type SessionPath, SymbolPath, startMarket } from './market.ts';
import { profileOf, type SimulatedInstrument, type SymbolProfile } from './profiles.ts';
import { Random, streamKey } from './random.ts';
import {
  aggregateSize,
  normalizeInstant,
  normalizeSeed,
  roundToTick,
  runTag,
  TradeIdSequence,
} from './trades.ts';

export type HistoryDensity = 'sparse' | 'medium' | 'dense';

export interface HistoryOptions {
  /** Any safe integer; used modulo 2^32. */
  readonly seed: number;
  readonly symbols: readonly SimulatedInstrument[];
  /** Unix ms: trades have timestamps in [fromMs, toMs). */
  readonly fromMs: number;
  readonly toMs: number;
  /** How many trades a session gets, by its date (`YYYY-MM-DD`, New York). */
  densityFor(sessionDate: string): HistoryDensity;
}

export interface MarketHistory {
  /** The simulated symbols, in the order given (repeats dropped). */
  readonly symbols: readonly string[];
  /** The dates of the sessions (or parts of sessions) inside [fromMs, toMs), oldest first. */
  readonly sessionDates: readonly string[];
  /**
   * One symbol's trades, oldest first, in (timestamp, tradeId) order; returns its last price (undefined
   * when the range holds no session). A RangeError for a symbol not in `symbols`.
   */
  historyFor(symbol: string): Generator<Trade, number | undefined, undefined>;
}

const MINUTE_MS = 60_000;
// Hot-path functions bound locally: a transpiled module's imported binding can be a getter call per use.
const round = roundToTick;
const sizeOf = aggregateSize;
const shareOf = activityShareAt;

/** Bucket of session time per sample. */
const BUCKET_MS: Readonly<Record<HistoryDensity, number>> = {
  sparse: 10 * MINUTE_MS,
  medium: 10 * MINUTE_MS,
  dense: 2 * MINUTE_MS,
};
/** The most samples a session can have (a full session in the smallest buckets, plus one). */
const MAX_SAMPLES = 200;
/** Sparse sessions get 6, 7 or 8 trades. */
const SPARSE_TRADES = { min: 6, spread: 3 } as const;
/** The close trade falls in the window's last minute. */
const CLOSING_MINUTE_MS = MINUTE_MS;

/** The part of a session inside [fromMs, toMs). */
interface Window {
  readonly path: SessionPath;
  readonly fromMs: number;
  readonly toMs: number;
}

/** Sample instants of a window: its start, one per bucket at random, the last one in the last minute. */
function sampleTimes(window: Window, bucketMs: number, random: Random, times: Float64Array): number {
  const { fromMs: a, toMs: b } = window;
  times[0] = a;
  const count = Math.ceil((b - a) / bucketMs);
  for (let j = 1; j < count; j++) {
    let start = a + j * bucketMs;
    const end = Math.min(start + bucketMs, b);
    if (j === count - 1) start = Math.max(start, b - CLOSING_MINUTE_MS);
    times[j] = start + Math.floor(random.next() * (end - start));
  }
  if (count === 1 && b - a > CLOSING_MINUTE_MS) {
    times[1] = b - CLOSING_MINUTE_MS + Math.floor(random.next() * CLOSING_MINUTE_MS);
    return 2;
  }
  return count;
}

/**
 * Marks the samples that become trades. Sparse: the first, the last, the high, the low, and random others
 * up to 6-8. Otherwise: all of them.
 */
function pick(
  density: HistoryDensity,
  prices: Float64Array,
  n: number,
  random: Random,
  picked: Uint8Array,
): void {
  const all = density !== 'sparse';
  picked.fill(all ? 1 : 0, 0, n);
  if (all) return;
  let high = 0;
  let low = 0;
  for (let i = 1; i < n; i++) {
    const price = prices[i] ?? 0;
    if (price > (prices[high] ?? 0)) high = i;
    if (price < (prices[low] ?? 0)) low = i;
  }
  picked[0] = 1;
  picked[n - 1] = 1;
  picked[high] = 1;
  picked[low] = 1;
  let count = 0;
  for (let i = 0; i < n; i++) count += picked[i] ?? 0;
  const target = Math.min(n, SPARSE_TRADES.min + random.int(SPARSE_TRADES.spread));
  while (count < target) {
    const i = random.int(n);
    if (picked[i] === 0) {
      picked[i] = 1;
      count += 1;
    }
  }
}

/** Share of the session's expected trades before an instant (clamped to the session). */
function activityShareBefore(session: SessionPath, t: number): number {
  return shareOf(session.fractionAt(Math.min(t, session.closeMs)));
}

/** Each factor's value at an instant: inside a session, or before its open (the previous close). */
function factorsAt(path: SessionPath, t: number, inside: boolean): number[] {
  const position = path.position(t);
  return [0, 1, 2, 3].map((f) => (inside ? path.factorAt(f, position) : (path.before[f] ?? 0)));
}

interface SymbolSetup {
  readonly profile: SymbolProfile;
  readonly startPrice: number;
}

export function createHistory(options: HistoryOptions): MarketHistory {
  const seed = normalizeSeed(options.seed);
  const fromMs = normalizeInstant('fromMs', options.fromMs);
  const toMs = normalizeInstant('toMs', options.toMs);
  const { densityFor } = options;
  const idTag = runTag(fromMs, seed);
  const first = startMarket(new Random(streamKey(seed, 'history-market', fromMs)), fromMs);

  const windows: Window[] = [];
  for (let path = first; path !== undefined && path.openMs < toMs; path = path.next()) {
    const window = { path, fromMs: Math.max(path.openMs, fromMs), toMs: Math.min(path.closeMs, toMs) };
    if (window.fromMs < window.toMs) windows.push(window);
  }

  // Factor values at the start and at the end of the range, to anchor prices to the end.
  const last = windows.at(-1);
  const startFactors = first === undefined ? undefined : factorsAt(first, fromMs, fromMs > first.openMs);
  const endFactors = last === undefined ? undefined : factorsAt(last.path, last.toMs, true);

  const setups = new Map<string, SymbolSetup>();
  for (const instrument of options.symbols) {
    if (setups.has(instrument.symbol)) continue;
    const profile = profileOf(instrument);
    let startPrice = profile.startPrice;
    if (startFactors !== undefined && endFactors !== undefined) {
      const { beta, ownFactor } = factorExposure(profile);
      const own = ownFactor < 0 ? 0 : (endFactors[ownFactor] ?? 0) - (startFactors[ownFactor] ?? 0);
      startPrice *= Math.exp(-(beta * ((endFactors[0] ?? 0) - (startFactors[0] ?? 0)) + own));
    }
    setups.set(instrument.symbol, { profile, startPrice });
  }

  function* historyFor(symbol: string): Generator<Trade, number | undefined, undefined> {
    const setup = setups.get(symbol);
    if (setup === undefined) throw new RangeError(`Unknown symbol ${symbol}: not in the history's symbols`);
    if (first === undefined) return undefined;
    const { profile, startPrice } = setup;
    const random = new Random(streamKey(seed, 'history-symbol', fromMs, symbol));
    const path = new SymbolPath(profile, startPrice, fromMs, first, random);
    const { tick, kind, meanIntervalMs } = profile;
    const times = new Float64Array(MAX_SAMPLES);
    const prices = new Float64Array(MAX_SAMPLES);
    const picked = new Uint8Array(MAX_SAMPLES);
    const ids = new TradeIdSequence('hist', idTag);
    let lastPrice: number | undefined;
    for (const window of windows) {
      const session = window.path;
      const density = densityFor(session.date);
      const bucketMs = BUCKET_MS[density];
      if (bucketMs === undefined) {
        throw new RangeError(`Invalid density ${String(density)} for ${session.date}`);
      }
      const n = sampleTimes(window, bucketMs, random, times);
      for (let i = 0; i < n; i++) prices[i] = round(Math.exp(path.logPriceAt(session, times[i] ?? 0)), tick);
      pick(density, prices, n, random, picked);
      // Expected live trades in the session; each trade carries those since the previous one, the first a
      // minute's worth (the opening print).
      const sessionTrades = (session.closeMs - session.openMs) / meanIntervalMs;
      let previousShare = -1;
      for (let i = 0; i < n; i++) {
        if (picked[i] === 0) continue;
        const timestamp = times[i] ?? 0;
        const price = prices[i] ?? 0;
        const share = activityShareBefore(session, timestamp);
        const expected =
          previousShare < 0
            ? sessionTrades * (activityShareBefore(session, timestamp + MINUTE_MS) - share)
            : sessionTrades * (share - previousShare);
        previousShare = share;
        lastPrice = price;
        yield {
          symbol,
          price,
          size: sizeOf(kind, Math.max(expected, 1), random),
          timestamp,
          tradeId: ids.next(timestamp),
        };
      }
    }
    return lastPrice;
  }

  return {
    symbols: [...setups.keys()],
    sessionDates: windows.map((window) => window.path.date),
    historyFor,
  };
}

/**
 * Every symbol's history at once: each symbol's trades in time order, symbol after symbol, and each
 * symbol's last price (for `createMarketModel`'s `startPrices`). Holds everything in memory: for a big
 * universe prefer `createHistory(...).historyFor(symbol)` one symbol at a time.
 */
export function historyTrades(options: HistoryOptions): { trades: Trade[]; lastPrices: Map<string, number> } {
  const history = createHistory(options);
  const trades: Trade[] = [];
  const lastPrices = new Map<string, number>();
  for (const symbol of history.symbols) {
    const generator = history.historyFor(symbol);
    for (let step = generator.next(); ; step = generator.next()) {
      if (step.done) {
        if (step.value !== undefined) lastPrices.set(symbol, step.value);
        break;
      }
      trades.push(step.value);
    }
  }
  return { trades, lastPrices };
}
