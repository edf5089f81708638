import { TRADE_TIMING } from '#contracts/ingestion';
import type { Trade, TradeMark } from './bars.ts';
import type { RecentTrades } from './ledger.ts';

const keyOf = (timestamp: number, tradeId: string): string => `${timestamp} ${tradeId}`;

const IN_ORDER = 1;
const LATE = 2;

/**
 * The trades a symbol applied within the late-print window (TRADE_TIMING.lateToleranceMs before its last
 * applied trade): what tells a late print, which is folded in, from a redelivered trade, which is not
 * (docs/candles.md#late-and-early-prints). One instance per fold call, over the call's trades: an applied
 * trade costs one byte written (its position marked); the lookup set is built only when a trade at or before
 * the watermark asks, and the stored window only at the end.
 */
export class RecentTradeWindow {
  /** A trade at or before this instant is older than what the window can vouch for. */
  readonly afterMs: number;
  private readonly stored: RecentTrades;
  private readonly marks: Uint8Array;
  private lookup: Set<string> | undefined;
  private latePrints = false;

  constructor(
    stored: RecentTrades | undefined,
    lastTrade: TradeMark | undefined,
    private readonly trades: readonly Trade[],
  ) {
    // A ledger from before the window knows only its watermark trade, so nothing at or before it is applied
    // (no trade can be counted twice; a same-millisecond tie at that one instant is refused).
    this.stored = stored ?? {
      afterMs: lastTrade?.timestamp ?? Number.NEGATIVE_INFINITY,
      timestamps: lastTrade ? [lastTrade.timestamp] : [],
      tradeIds: lastTrade ? [lastTrade.tradeId] : [],
    };
    this.afterMs = this.stored.afterMs;
    this.marks = new Uint8Array(trades.length);
  }

  /** Whether the trade was applied before: stored in the window, or applied earlier in this call. */
  has(timestamp: number, tradeId: string): boolean {
    if (this.lookup === undefined) {
      const lookup = new Set<string>();
      const { timestamps, tradeIds } = this.stored;
      for (let index = 0; index < timestamps.length; index++) {
        lookup.add(keyOf(timestamps[index] as number, tradeIds[index] as string));
      }
      for (let position = 0; position < this.marks.length; position++) {
        const trade = this.trades[position] as Trade;
        if (this.marks[position] !== 0) lookup.add(keyOf(trade.timestamp, trade.tradeId));
      }
      this.lookup = lookup;
    }
    return this.lookup.has(keyOf(timestamp, tradeId));
  }

  /** Per trade of the call: non-zero when it was applied (in time order or as a late print). */
  get appliedMarks(): Uint8Array {
    return this.marks;
  }

  /** Marks the call's trade at `position` applied: in time order, or as a late print. */
  applied(position: number, late: boolean): void {
    this.marks[position] = late ? LATE : IN_ORDER;
    if (late) this.latePrints = true;
    if (this.lookup !== undefined) {
      const trade = this.trades[position] as Trade;
      this.lookup.add(keyOf(trade.timestamp, trade.tradeId));
    }
  }

  /** What the ledger keeps once `watermarkMs` is the last applied trade: the window, at most the cap. */
  toStored(watermarkMs: number): RecentTrades {
    let afterMs = Math.max(this.afterMs, watermarkMs - TRADE_TIMING.lateToleranceMs);
    // This call's applied trades inside the window, newest first: in-order trades ascend, so without late
    // prints the scan stops at the first one outside the window.
    const recentTimes: number[] = [];
    const recentIds: string[] = [];
    for (let position = this.marks.length - 1; position >= 0; position--) {
      const mark = this.marks[position];
      if (mark === 0) continue;
      const trade = this.trades[position] as Trade;
      if (trade.timestamp <= afterMs) {
        if (!this.latePrints) break;
        continue;
      }
      recentTimes.push(trade.timestamp);
      recentIds.push(trade.tradeId);
    }
    let timestamps: number[] = [];
    let tradeIds: string[] = [];
    const { timestamps: storedTimes, tradeIds: storedIds } = this.stored;
    for (let index = 0; index < storedTimes.length; index++) {
      if ((storedTimes[index] as number) <= afterMs) continue;
      timestamps.push(storedTimes[index] as number);
      tradeIds.push(storedIds[index] as string);
    }
    for (let index = recentTimes.length - 1; index >= 0; index--) {
      timestamps.push(recentTimes[index] as number);
      tradeIds.push(recentIds[index] as string);
    }
    if (this.latePrints) {
      const order = timestamps
        .map((_, index) => index)
        .sort((a, b) => (timestamps[a] as number) - (timestamps[b] as number));
      const sortedIds = order.map((index) => tradeIds[index] as string);
      timestamps = order.map((index) => timestamps[index] as number);
      tradeIds = sortedIds;
    }
    const excess = timestamps.length - TRADE_TIMING.rememberedTradeIds;
    if (excess > 0) {
      // Forget whole milliseconds: a millisecond half remembered could let one of its trades count twice.
      afterMs = Math.max(afterMs, timestamps[excess - 1] as number);
      let from = excess;
      while (from < timestamps.length && (timestamps[from] as number) <= afterMs) from++;
      timestamps = timestamps.slice(from);
      tradeIds = tradeIds.slice(from);
    }
    return { afterMs, timestamps, tradeIds };
  }
}
