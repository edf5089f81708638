/**
 * What turns a simulated price into a trade: tick rounding, trade sizes and trade ids.
 *
 * Trade ids: `sim-<timestamp>-<start>-<seed>-<sequence>` (live) and `hist-...` (history), e.g.
 * `sim-1732890600123-1732890000000-0000002a-000000017`:
 * - timestamp: the trade's Unix ms, 13 digits; start: the run's start instant (Unix ms, 13 digits);
 *   seed: the run's seed, 8 hex digits; sequence: the symbol's trade count in the run, 9 digits.
 * - Fixed width and zero-padded, so plain string order is numeric order: within a symbol and run, ids
 *   increase with time, and the sequence breaks ties between trades in the same millisecond.
 * - Unique across runs: a restarted local stack continues from stored prices with a new start instant
 *   (and possibly another seed), so its ids differ from the previous run's even where the two runs' trades
 *   fall in the same millisecond (a clock set back). A run with the same seed and start is the same run:
 *   it makes the same trades with the same ids, which the ingest path's (timestamp, tradeId) watermark
 *   skips as redeliveries.
 * - Leading with the timestamp keeps ids of different runs in time order too, and at a tie the later run
 *   (later start) sorts after the earlier one, so a continuing run's trade in the watermark's millisecond
 *   is applied, not skipped. Likewise `sim-` sorts after `hist-`: the live run after its history.
 */
import type { SymbolKind } from './profiles.ts';
import type { Random } from './random.ts';

/** A seed as the simulator uses it: a safe integer, taken modulo 2^32. */
export function normalizeSeed(seed: number): number {
  if (!Number.isSafeInteger(seed)) throw new RangeError(`Invalid seed ${seed}: expected an integer`);
  return seed >>> 0;
}

/** An instant option (startMs, fromMs, toMs): a finite, non-negative number of ms, floored. */
export function normalizeInstant(name: string, ms: number): number {
  if (!Number.isFinite(ms) || ms < 0) {
    throw new RangeError(`Invalid ${name} ${ms}: expected Unix milliseconds`);
  }
  return Math.floor(ms);
}

/** The run-constant middle of a trade id: `-<start>-<seed>-`. */
export function runTag(startMs: number, seed: number): string {
  return `-${String(startMs).padStart(13, '0')}-${seed.toString(16).padStart(8, '0')}-`;
}

const TIMESTAMP_SPLIT = 100_000_000;

/**
 * One symbol's trade ids in one run: `<prefix>-<timestamp>-<start>-<seed>-<sequence>`. Runs once per trade,
 * so the 13-digit timestamp is printed in two parts, the upper five digits (which change every 28 hours)
 * remembered: printing a number beyond 2^31 costs several times as much as a small one.
 */
export class TradeIdSequence {
  private sequence = 0;
  private highKey = -1;
  private highText = '';

  constructor(
    private readonly prefix: 'sim' | 'hist',
    private readonly tag: string,
  ) {}

  /** The id of the symbol's next trade (timestamps must not decrease). */
  next(timestamp: number): string {
    this.sequence += 1;
    const high = Math.floor(timestamp / TIMESTAMP_SPLIT);
    if (high !== this.highKey) {
      this.highKey = high;
      this.highText = `${this.prefix}-${String(high).padStart(5, '0')}`;
    }
    const low = String(timestamp - high * TIMESTAMP_SPLIT).padStart(8, '0');
    return `${this.highText}${low}${this.tag}${String(this.sequence).padStart(9, '0')}`;
  }
}

/** The nearest multiple of the tick, and at least one tick. Exact decimals for ticks 0.01, 0.1, 0.25, 1. */
export function roundToTick(price: number, tick: number): number {
  if (tick >= 1) return Math.max(tick, Math.round(price / tick) * tick);
  const perUnit = Math.round(1 / tick);
  return Math.max(tick, Math.round(price * perUnit) / perUnit);
}

/** Futures: 1-20 contracts, mostly a few. */
const FUTURE_SIZE = { mean: 2.5, max: 20 } as const;
/** Stocks and ETFs: 12% odd lots (1-99 shares); otherwise round lots, geometric (p 0.45), 2% blocks of 10x. */
const SHARE_SIZE = {
  oddLotShare: 0.12,
  lotStop: 0.45,
  maxLots: 50,
  blockShare: 0.02,
  blockLots: 10,
} as const;

/** Expected sizes of one trade (what a history trade of N trades' volume is built from). */
export const MEAN_TRADE_SIZE: Readonly<Record<SymbolKind, number>> = { future: 3, etf: 237, stock: 237 };

export function tradeSize(kind: SymbolKind, random: Random): number {
  if (kind === 'future') {
    return Math.min(FUTURE_SIZE.max, 1 + Math.floor(random.exponential(FUTURE_SIZE.mean)));
  }
  if (random.next() < SHARE_SIZE.oddLotShare) return 1 + random.int(99);
  const lots = Math.min(
    SHARE_SIZE.maxLots,
    1 + Math.floor(Math.log(1 - random.next()) / Math.log(1 - SHARE_SIZE.lotStop)),
  );
  const block = random.next() < SHARE_SIZE.blockShare ? SHARE_SIZE.blockLots : 1;
  return 100 * lots * block;
}

/**
 * A history trade's size: the volume of `expectedTrades` live trades, give or take half (uniform noise, mean
 * 1); whole lots for shares.
 */
export function aggregateSize(kind: SymbolKind, expectedTrades: number, random: Random): number {
  const volume = expectedTrades * MEAN_TRADE_SIZE[kind] * (0.5 + random.next());
  if (kind === 'future') return Math.max(1, Math.round(volume));
  return 100 * Math.max(1, Math.round(volume / 100));
}
