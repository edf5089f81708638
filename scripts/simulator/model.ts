/**
 * The local stack's market simulator: plausible synthetic trades for every symbol of the universe,
 * deterministic from a seed, pure (no I/O, no clock: time is passed in). See docs/simulator.md.
 *
 *   const model = createMarketModel({ seed: 42, symbols: instruments, startMs, startPrices });
 *   const trades = model.advance(nowMs); // every trade in [previous nowMs, nowMs), sessions only
 *
 * Each symbol has its own random stream (seed, start, symbol) and draws its trades one at a time, always
 * holding the next one: `advance` hands out the trades before `toMs` and keeps the rest, so any split of a
 * time span into `advance` calls gives the same trades. Arrivals run on session time only: a jump over a
 * night, a weekend or a holiday costs one session lookup per symbol, however long it is.
 */
import type { Trade } from '#domain/market-data/bars';
import { ACTIVITY_PEAK, activityAt, type SessionPath, SymbolPath, startMarket } from './market.ts';
import { profileOf, type SimulatedInstrument, type SymbolProfile } from './profiles.ts';
import { Random, streamKey } from './random.ts';
import {
  normalizeInstant,
  normalizeSeed,
  roundToTick,
  runTag,
  TradeIdSequence,
  tradeSize,
} from './trades.ts';

export type { Trade } from '#domain/market-data/bars';
export {
  createHistory,
  type HistoryDensity,
  type HistoryOptions,
  historyTrades,
  type MarketHistory,
} from './history.ts';
export type { SimulatedInstrument, SymbolProfile } from './profiles.ts';
export { defaultStartPrice, profileOf } from './profiles.ts';

// Hot-path bindings made local: a transpiled module's imported binding can be a getter call per use.
const PEAK = ACTIVITY_PEAK;
const activity = activityAt;
const round = roundToTick;
const sizeOf = tradeSize;

export interface MarketModelOptions {
  /** Any safe integer; used modulo 2^32. Same seed, start, symbols and start prices: same trades. */
  readonly seed: number;
  /** The symbols to simulate (an `Instrument` fits); a repeated symbol is simulated once. */
  readonly symbols: readonly SimulatedInstrument[];
  /** Unix ms: the model's "now" at creation; the first `advance` covers [startMs, toMs). */
  readonly startMs: number;
  /**
   * Prices to continue from (a restarted local stack's stored latest prices). A symbol without one, or with
   * one that is not a finite number > 0, starts at its default level (profiles.ts).
   */
  readonly startPrices?: ReadonlyMap<string, number>;
}

export interface MarketModel {
  /**
   * Trades of every symbol with timestamps in [previous toMs (or startMs), toMs), nothing outside regular
   * sessions; sorted by timestamp (stable: each symbol's trades stay in their order, which is
   * (timestamp, tradeId) order). A `toMs` not after the previous one returns no trades.
   */
  advance(toMs: number): Trade[];
  /** The symbol's last traded price (its start price before its first trade); undefined if not simulated. */
  price(symbol: string): number | undefined;
}

class LiveSymbol {
  lastPrice: number;
  /** The next trade's timestamp (Infinity: none before the calendar ends). */
  nextMs = Number.POSITIVE_INFINITY;
  private readonly path: SymbolPath | undefined;
  /** The session of the next trade. */
  private session: SessionPath | undefined;
  /** The arrival process's time (ms, fractional). */
  private cursor: number;
  private readonly ids: TradeIdSequence;
  private readonly candidateMeanMs: number;

  constructor(
    private readonly profile: SymbolProfile,
    startPrice: number,
    startMs: number,
    first: SessionPath | undefined,
    private readonly random: Random,
    idTag: string,
  ) {
    this.lastPrice = startPrice;
    this.ids = new TradeIdSequence('sim', idTag);
    this.candidateMeanMs = profile.meanIntervalMs / PEAK;
    this.session = first;
    this.cursor = first === undefined ? startMs : Math.max(startMs, first.openMs);
    this.path = first === undefined ? undefined : new SymbolPath(profile, startPrice, startMs, first, random);
    this.scheduleNext();
  }

  /** Appends this symbol's trades before `toMs`. */
  emitUntil(toMs: number, out: Trade[]): void {
    const { profile, random, path } = this;
    while (this.nextMs < toMs && path !== undefined && this.session !== undefined) {
      const timestamp = this.nextMs;
      const price = round(Math.exp(path.logPriceAt(this.session, timestamp)), profile.tick);
      out.push({
        symbol: profile.symbol,
        price,
        size: sizeOf(profile.kind, random),
        timestamp,
        tradeId: this.ids.next(timestamp),
      });
      this.lastPrice = price;
      this.scheduleNext();
    }
  }

  /**
   * The next arrival: a Poisson process on session time (the gaps between sessions cut out) at the peak
   * rate, thinned to the intraday activity shape.
   */
  private scheduleNext(): void {
    const { random } = this;
    let session = this.session;
    let t = this.cursor;
    while (session !== undefined) {
      t += random.exponential(this.candidateMeanMs);
      while (session !== undefined && t >= session.closeMs) {
        const overflow = t - session.closeMs;
        session = session.next();
        if (session !== undefined) t = session.openMs + overflow;
      }
      if (session !== undefined && random.next() * PEAK < activity(session.fractionAt(t))) break;
    }
    this.session = session;
    this.cursor = t;
    this.nextMs = session === undefined ? Number.POSITIVE_INFINITY : Math.floor(t);
  }
}

function validStartPrice(price: number | undefined): price is number {
  return price !== undefined && Number.isFinite(price) && price > 0;
}

export function createMarketModel(options: MarketModelOptions): MarketModel {
  const seed = normalizeSeed(options.seed);
  const startMs = normalizeInstant('startMs', options.startMs);
  const first = startMarket(new Random(streamKey(seed, 'live-market', startMs)), startMs);
  const idTag = runTag(startMs, seed);
  const bySymbol = new Map<string, LiveSymbol>();
  for (const instrument of options.symbols) {
    if (bySymbol.has(instrument.symbol)) continue;
    const profile = profileOf(instrument);
    const stored = options.startPrices?.get(instrument.symbol);
    const startPrice = validStartPrice(stored) ? stored : profile.startPrice;
    const random = new Random(streamKey(seed, 'live-symbol', startMs, instrument.symbol));
    bySymbol.set(instrument.symbol, new LiveSymbol(profile, startPrice, startMs, first, random, idTag));
  }
  const symbols = [...bySymbol.values()];
  let nowMs = startMs;

  return {
    advance(toMs: number): Trade[] {
      if (!Number.isFinite(toMs)) throw new RangeError(`Invalid toMs ${toMs}: expected Unix milliseconds`);
      if (toMs <= nowMs) return [];
      nowMs = toMs;
      const trades: Trade[] = [];
      let symbolsWithTrades = 0;
      for (const symbol of symbols) {
        const before = trades.length;
        symbol.emitUntil(toMs, trades);
        if (trades.length > before) symbolsWithTrades += 1;
      }
      if (symbolsWithTrades > 1) trades.sort((a, b) => a.timestamp - b.timestamp);
      return trades;
    },
    price(symbol: string): number | undefined {
      return bySymbol.get(symbol)?.lastPrice;
    },
  };
}
