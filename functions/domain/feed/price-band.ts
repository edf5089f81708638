/**
 * Erroneous prints: the Limit Up-Limit Down price band (docs/data-sources.md#erroneous-prints-the-luld-band).
 *
 * The Plan to Address Extraordinary Market Volatility forbids trades in an NMS stock outside a band around a
 * reference price during regular trading hours, so a print outside it cannot be a regular trade. This module
 * rebuilds the band from the feed's own trades, per symbol, and judges each print:
 *
 * - **Reference price**: the arithmetic mean of the eligible prints (those that move the last sale, inside
 *   the band) of the last five minutes, kept in per-second buckets. It changes only when that mean moves 1%
 *   or more from the reference in effect, and a new reference holds at least 30 s. The first reference of
 *   the day is the opening print (an Opening Trade condition) or, without one, the mean once the symbol has
 *   been watched for five minutes of the session; a reopening print (after a trading pause) becomes the new
 *   reference. Before that there is no band (after a restart too): nothing is invented.
 * - **Percentage parameters** (the Plan's Appendix A): Tier 1 5% above $3.00, Tier 2 10%; 20% from $0.75 to
 *   $3.00; below $0.75 the lesser of $0.15 and 75%. The price bracket is chosen once a day, from the day's
 *   first reference (the Plan uses the previous close, which the connector does not know).
 * - **Doubling**: since Amendment 18 (in force from 2020-02-24) the parameters double only in the last 25
 *   minutes of the session (15:35-16:00, or the 25 minutes before an early close, from the market calendar),
 *   and only for Tier 1 stocks and Tier 2 stocks in the $3.00-and-below brackets. The opening doubling is gone.
 * - **Exempt**: single-priced opening, reopening and closing auction prints (the Plan exempts them), and prints
 *   that move no price (they already count in volume only). Outside regular hours there is no band.
 * - **A lost reference**: a pause and reopening the feed did not carry (no reopening print) leaves a stale
 *   reference. When every price-moving print of a symbol has been outside the band for at least
 *   `RUN_TO_REANCHOR` prints spanning `RUN_SPAN_MS`, the reference is taken again from those prints.
 *
 * Memory: per symbol three 300-slot Float64Arrays (7.2 KB) and a few numbers; one state per symbol fed.
 */
import { type Session, sessionAt } from '../calendar/sessions.ts';
import type { Trade } from '../market-data/bars.ts';
import { isContinuousFuture } from './futures-roll.ts';
import type { Counting } from './sale-conditions.ts';

/** The Plan's tiers: 1 for the S&P 500, the Russell 1000 and most ETPs; 2 for every other NMS stock. */
export type LuldTier = 1 | 2;

/** A print as the band judges it. */
export interface BandPrint {
  readonly symbol: string;
  readonly price: number;
  readonly timestamp: number;
  readonly counting: Counting;
  /** A single-priced opening, reopening or closing auction print (its sale condition says so). */
  readonly auction?: 'open' | 'reopen' | 'close';
}

export interface Band {
  readonly lower: number;
  readonly upper: number;
}

export type BandVerdict =
  /** Within the band. */
  | { readonly kind: 'inside'; readonly band: Band }
  /** Outside it: not a regular trade, counts in volume only. */
  | { readonly kind: 'outside'; readonly band: Band; readonly reference: number }
  /** The Plan does not apply the band to it. */
  | { readonly kind: 'exempt'; readonly reason: 'auction' | 'moves-no-price' }
  /** No band to judge by: a future, outside regular hours, or no reference price yet. */
  | {
      readonly kind: 'unbanded';
      readonly reason: 'not-nms-stock' | 'outside-session' | 'earlier-session' | 'no-reference';
    };

const WINDOW_SECONDS = 300;
const WINDOW_MS = WINDOW_SECONDS * 1_000;
/** The reference moves when the five-minute mean is this far from it. */
const REFERENCE_MOVE = 0.01;
/** A new reference stays in effect at least this long. */
const REFERENCE_HOLD_MS = 30_000;
/** The last minutes of the session with doubled parameters. */
const CLOSE_DOUBLING_MS = 25 * 60_000;
/** A run of prints outside the band this long (both bounds) means the reference was lost. */
export const RUN_TO_REANCHOR = 5;
export const RUN_SPAN_MS = 10_000;
/** A print exactly on a band is inside; this absorbs floating-point noise at the edge. */
const EDGE_TOLERANCE = 1e-9;

/** The tier of a universe symbol: none for futures (CME's own rules), Tier 1 if listed in `tier1`, else 2. */
export function luldTierOf(symbol: string, tier1: ReadonlySet<string>): LuldTier | undefined {
  if (isContinuousFuture(symbol)) return undefined;
  return tier1.has(symbol) ? 1 : 2;
}

/** Whether the parameters are doubled at `timestamp`: the last 25 minutes, Tier 1 or a $3.00-or-less stock. */
export function isDoubled(
  tier: LuldTier,
  bracketPrice: number,
  session: Session,
  timestamp: number,
): boolean {
  if (timestamp < session.close.getTime() - CLOSE_DOUBLING_MS) return false;
  return tier === 1 || bracketPrice <= 3;
}

/** Half the band's width around `reference` (the Plan's percentage parameter applied). */
export function bandHalfWidth(
  tier: LuldTier,
  bracketPrice: number,
  reference: number,
  doubled: boolean,
): number {
  const factor = doubled ? 2 : 1;
  if (bracketPrice > 3) return reference * (tier === 1 ? 0.05 : 0.1) * factor;
  if (bracketPrice >= 0.75) return reference * 0.2 * factor;
  return Math.min(0.15, 0.75 * reference) * factor;
}

export function bandAround(reference: number, halfWidth: number): Band {
  return { lower: Math.max(0, reference - halfWidth), upper: reference + halfWidth };
}

export function isInside(price: number, band: Band): boolean {
  const tolerance = EDGE_TOLERANCE * Math.max(1, band.upper);
  return price >= band.lower - tolerance && price <= band.upper + tolerance;
}

/** The trade to put after its verdict: volume-only when outside the band, else the very same trade. */
export function tradeAfterBand(trade: Trade, verdict: BandVerdict): Trade {
  return verdict.kind === 'outside' ? { ...trade, volumeOnly: true } : trade;
}

/** The eligible prints of the last five minutes of one symbol, in per-second buckets. */
class FiveMinuteMean {
  private readonly seconds = new Float64Array(WINDOW_SECONDS).fill(-1);
  private readonly sums = new Float64Array(WINDOW_SECONDS);
  private readonly counts = new Float64Array(WINDOW_SECONDS);
  private newest = -1;
  private sum = 0;
  private count = 0;

  clear(): void {
    this.seconds.fill(-1);
    this.sums.fill(0);
    this.counts.fill(0);
    this.newest = -1;
    this.sum = 0;
    this.count = 0;
  }

  add(timestamp: number, price: number): void {
    const second = Math.floor(timestamp / 1_000);
    if (second > this.newest) this.advanceTo(second);
    else if (second <= this.newest - WINDOW_SECONDS) return; // older than the window: it no longer counts
    const slot = second % WINDOW_SECONDS;
    this.sums[slot] = (this.sums[slot] as number) + price;
    this.counts[slot] = (this.counts[slot] as number) + 1;
    this.sum += price;
    this.count++;
  }

  /** The mean of the five minutes up to the newest print, or undefined when empty. */
  mean(): number | undefined {
    return this.count > 0 ? this.sum / this.count : undefined;
  }

  private advanceTo(second: number): void {
    const from = Math.max(this.newest + 1, second - WINDOW_SECONDS + 1);
    for (let each = from; each <= second; each++) {
      const slot = each % WINDOW_SECONDS;
      if (this.seconds[slot] !== -1) {
        this.sum -= this.sums[slot] as number;
        this.count -= this.counts[slot] as number;
      }
      this.seconds[slot] = each;
      this.sums[slot] = 0;
      this.counts[slot] = 0;
    }
    if (second - this.newest >= WINDOW_SECONDS) {
      // Every slot was replaced: start the totals afresh (no floating-point drift carried over).
      this.sum = 0;
      this.count = 0;
    }
    if (this.count === 0) this.sum = 0;
    this.newest = second;
  }
}

interface SymbolBand {
  date: string;
  watchedFromMs: number;
  reference: number | undefined;
  referenceSinceMs: number;
  bracketPrice: number | undefined;
  readonly window: FiveMinuteMean;
  run: { count: number; sum: number; firstMs: number };
}

/** The band of every symbol fed, rebuilt from its prints (feed them in the order printed, per symbol). */
export class PriceBands {
  private readonly states = new Map<string, SymbolBand>();

  constructor(private readonly tierOf: (symbol: string) => LuldTier | undefined) {}

  /** Judges a print and takes it into its symbol's reference price. */
  check(print: BandPrint): BandVerdict {
    const tier = this.tierOf(print.symbol);
    if (tier === undefined) return { kind: 'unbanded', reason: 'not-nms-stock' };
    const session = sessionAt(new Date(print.timestamp));
    if (session === undefined) return { kind: 'unbanded', reason: 'outside-session' };
    const state = this.stateOf(print.symbol, session, print.timestamp);
    if (state === undefined) return { kind: 'unbanded', reason: 'earlier-session' };
    if (print.counting !== 'full') return { kind: 'exempt', reason: 'moves-no-price' };
    if (print.auction !== undefined) {
      if (print.auction === 'close') state.window.add(print.timestamp, print.price);
      else this.anchor(state, print.timestamp, print.price);
      return { kind: 'exempt', reason: 'auction' };
    }
    const reference = state.reference;
    if (reference === undefined || state.bracketPrice === undefined) {
      this.takeEligible(state, print);
      return { kind: 'unbanded', reason: 'no-reference' };
    }
    const doubled = isDoubled(tier, state.bracketPrice, session, print.timestamp);
    const band = bandAround(reference, bandHalfWidth(tier, state.bracketPrice, reference, doubled));
    if (isInside(print.price, band)) {
      this.takeEligible(state, print);
      return { kind: 'inside', band };
    }
    if (state.run.count === 0) state.run = { count: 0, sum: 0, firstMs: print.timestamp };
    state.run.count++;
    state.run.sum += print.price;
    if (state.run.count >= RUN_TO_REANCHOR && print.timestamp - state.run.firstMs >= RUN_SPAN_MS) {
      // Too many prints, for too long, to be errors: the reference was lost (a pause the feed did not show).
      const anchored = state.run.sum / state.run.count;
      this.anchor(state, print.timestamp, anchored);
      return {
        kind: 'inside',
        band: bandAround(anchored, bandHalfWidth(tier, state.bracketPrice, anchored, doubled)),
      };
    }
    return { kind: 'outside', band, reference };
  }

  /** The symbol's state for the print's session (a new session starts afresh); undefined for an earlier one. */
  private stateOf(symbol: string, session: Session, timestamp: number): SymbolBand | undefined {
    let state = this.states.get(symbol);
    if (state !== undefined && session.date < state.date) return undefined;
    if (state === undefined || state.date !== session.date) {
      state = {
        date: session.date,
        watchedFromMs: timestamp,
        reference: undefined,
        referenceSinceMs: 0,
        bracketPrice: undefined,
        window: state?.window ?? new FiveMinuteMean(),
        run: { count: 0, sum: 0, firstMs: 0 },
      };
      state.window.clear();
      this.states.set(symbol, state);
    }
    return state;
  }

  /** An eligible print: into the mean; the reference follows the mean per the Plan. */
  private takeEligible(state: SymbolBand, print: BandPrint): void {
    state.run.count = 0;
    state.window.add(print.timestamp, print.price);
    const mean = state.window.mean() as number;
    if (state.reference === undefined) {
      if (print.timestamp - state.watchedFromMs >= WINDOW_MS) this.setReference(state, mean, print.timestamp);
      return;
    }
    if (print.timestamp - state.referenceSinceMs < REFERENCE_HOLD_MS) return;
    if (Math.abs(mean - state.reference) >= REFERENCE_MOVE * state.reference) {
      this.setReference(state, mean, print.timestamp);
    }
  }

  /** A new starting point (an opening or reopening print, or a lost reference found again). */
  private anchor(state: SymbolBand, timestamp: number, price: number): void {
    state.window.clear();
    state.window.add(timestamp, price);
    state.run.count = 0;
    state.watchedFromMs = timestamp;
    this.setReference(state, price, timestamp);
  }

  private setReference(state: SymbolBand, reference: number, timestamp: number): void {
    state.reference = reference;
    state.referenceSinceMs = timestamp;
    state.bracketPrice ??= reference;
  }
}
