import { TRADE_TIMING } from '#contracts/ingestion';
import type { TradeMark } from './bars.ts';
import type { RecentTrades } from './ledger.ts';

const keyOf = (timestamp: number, tradeId: string): string => `${timestamp} ${tradeId}`;

/** The index of the first of the ascending `timestamps` after `instantMs` (binary search). */
function firstAfter(timestamps: readonly number[], instantMs: number): number {
  let low = 0;
  let high = timestamps.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((timestamps[middle] as number) <= instantMs) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The trades a symbol applied within the late-print window (TRADE_TIMING.lateToleranceMs before its last
 * applied trade): what tells a late print, which is folded in, from a redelivered trade, which is not
 * (docs/candles.md#late-and-early-prints). One instance per fold call; the lookup set is built only when a
 * trade at or before the watermark asks, so trades in time order cost one push each.
 */
export class RecentTradeWindow {
  /** A trade at or before this instant is older than what the window can vouch for. */
  readonly afterMs: number;
  private readonly timestamps: number[];
  private readonly tradeIds: string[];
  private lookup: Set<string> | undefined;
  private sorted = true;

  constructor(stored: RecentTrades | undefined, lastTrade: TradeMark | undefined) {
    if (stored !== undefined) {
      this.afterMs = stored.afterMs;
      this.timestamps = [...stored.timestamps];
      this.tradeIds = [...stored.tradeIds];
    } else {
      // A ledger from before the window: only the watermark trade is known, so nothing at or before it is
      // applied (no trade can be counted twice; a same-millisecond tie at that one instant is refused).
      this.afterMs = lastTrade?.timestamp ?? Number.NEGATIVE_INFINITY;
      this.timestamps = lastTrade ? [lastTrade.timestamp] : [];
      this.tradeIds = lastTrade ? [lastTrade.tradeId] : [];
    }
  }

  has(timestamp: number, tradeId: string): boolean {
    if (this.lookup === undefined) {
      this.lookup = new Set();
      for (let index = 0; index < this.timestamps.length; index++) {
        this.lookup.add(keyOf(this.timestamps[index] as number, this.tradeIds[index] as string));
      }
    }
    return this.lookup.has(keyOf(timestamp, tradeId));
  }

  /** Remembers an applied trade (in time order, or a late print: `late` true). */
  add(timestamp: number, tradeId: string, late: boolean): void {
    this.timestamps.push(timestamp);
    this.tradeIds.push(tradeId);
    this.lookup?.add(keyOf(timestamp, tradeId));
    if (late) this.sorted = false;
  }

  /** What the ledger keeps once `watermarkMs` is the last applied trade: the window, at most the cap. */
  toStored(watermarkMs: number): RecentTrades {
    let timestamps = this.timestamps;
    let tradeIds = this.tradeIds;
    if (!this.sorted) {
      const order = timestamps
        .map((_, index) => index)
        .sort((a, b) => (timestamps[a] as number) - (timestamps[b] as number));
      timestamps = order.map((index) => this.timestamps[index] as number);
      tradeIds = order.map((index) => this.tradeIds[index] as string);
    }
    let afterMs = Math.max(this.afterMs, watermarkMs - TRADE_TIMING.lateToleranceMs);
    const excess = timestamps.length - TRADE_TIMING.rememberedTradeIds;
    // Forget whole milliseconds: a millisecond half remembered could let one of its trades count twice.
    if (excess > 0) afterMs = Math.max(afterMs, timestamps[excess - 1] as number);
    const from = firstAfter(timestamps, afterMs);
    return { afterMs, timestamps: timestamps.slice(from), tradeIds: tradeIds.slice(from) };
  }
}
