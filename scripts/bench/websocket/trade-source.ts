import type { Trade } from '#domain/market-data/bars';
import { encodeTradeRecord } from '#domain/market-data/trade-records';
import type { LocalStack } from '../../local/stack.ts';
import { now, priceOf } from './protocol.ts';
import { SYMBOLS } from './workload.ts';

/**
 * The benchmark's trades on the stack's trades stream, one at a time: per-symbol sequence numbers (carried
 * in the price) and timestamps, increasing across the whole run; put times by trade.
 */
export class TradeSource {
  private readonly sequence = new Array<number>(SYMBOLS.length).fill(0);
  private readonly lastStamp = new Array<number>(SYMBOLS.length).fill(0);
  private readonly putAt = new Map<number, number>();
  private next = 0;

  constructor(private readonly stack: LocalStack) {}

  /** Puts the next trade of `symbol` (an index into SYMBOLS), stamped at the service clock's now. */
  put(symbol: number): void {
    const sequence = this.sequence[symbol] ?? 0;
    this.sequence[symbol] = sequence + 1;
    // The stack's own clock: the hops of the latency budget are timed from the trade's time.
    const timestamp = Math.max(this.stack.nowMs(), (this.lastStamp[symbol] ?? 0) + 1);
    this.lastStamp[symbol] = timestamp;
    const trade: Trade = {
      symbol: SYMBOLS[symbol] ?? '',
      price: priceOf(sequence),
      size: 100,
      timestamp,
      tradeId: `ws-bench-${String(sequence).padStart(8, '0')}`,
    };
    this.putAt.set(symbol * 1_000_000 + sequence, now());
    this.stack.trades.put([{ partitionKey: trade.symbol, data: encodeTradeRecord(trade) }]);
  }

  /** The next trade round robin over the symbols; returns its symbol. */
  putNext(): number {
    const symbol = this.next;
    this.put(symbol);
    this.next = (symbol + 1) % SYMBOLS.length;
    return symbol;
  }

  /** The sequence number of the last trade put of `symbol`, -1 before any. */
  lastSequence(symbol: number): number {
    return (this.sequence[symbol] ?? 0) - 1;
  }

  putTime(symbol: number, sequence: number): number | undefined {
    return this.putAt.get(symbol * 1_000_000 + sequence);
  }

  get trades(): number {
    return this.putAt.size;
  }
}
