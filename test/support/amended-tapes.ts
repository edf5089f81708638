import fc from 'fast-check';
import type { Bar, Trade } from '#domain/market-data/bars';
import { INTERVALS } from '#domain/market-data/intervals';
import type { BarStore, LedgerStore } from '#domain/market-data/ports';
import { foldTrades } from '#domain/strat/trade-fold';

/**
 * What the amendment property tests share (test/unit/domain/market-data/trade-amendments.test.ts,
 * test/unit/use-cases/ingest-amendments-property.test.ts): random tapes of one symbol over two sessions, random
 * cancels and corrections of their trades, and the bars a from-scratch fold leaves, the truth they compare with.
 */
const MINUTE = 60_000;

/** Thursday and Friday 2024-03-07/08, both open 14:30Z: the two sessions a drawn tape spans. */
export const OPEN_THU = Date.parse('2024-03-07T14:30:00Z');
export const OPEN_FRI = Date.parse('2024-03-08T14:30:00Z');

/** A trade of the tape: its session (Thursday or Friday), its offset in the first 20 minutes, price and size. */
export type DrawnTrade = {
  friday: boolean;
  offsetMs: number;
  cents: number;
  size: number;
  volumeOnly: boolean;
};

export const tradeArb: fc.Arbitrary<DrawnTrade> = fc.record({
  friday: fc.boolean(),
  offsetMs: fc.integer({ min: 0, max: 20 * MINUTE - 1 }),
  cents: fc.integer({ min: 10_000, max: 20_000 }),
  size: fc.integer({ min: 0, max: 500 }),
  volumeOnly: fc.boolean(),
});

/** The drawn trades as one symbol's tape, in time order, ids `t0000`, `t0001`, ... in that order. */
export function tapeOf(drawn: readonly DrawnTrade[]): Trade[] {
  return drawn
    .map(({ friday, offsetMs, cents, size, volumeOnly }) => ({
      symbol: 'AAPL',
      timestamp: (friday ? OPEN_FRI : OPEN_THU) + offsetMs,
      price: cents / 100,
      size,
      ...(volumeOnly ? { volumeOnly } : {}),
    }))
    .sort((a, b) => a.timestamp - b.timestamp)
    .map((trade, index) => ({ ...trade, tradeId: `t${String(index).padStart(4, '0')}` }));
}

/** An amendment of the tape's trade number `target` (modulo its length): a cancel or a correction to these. */
export const amendmentFields = {
  target: fc.nat(),
  cancel: fc.boolean(),
  cents: fc.integer({ min: 10_000, max: 20_000 }),
  size: fc.integer({ min: 0, max: 500 }),
  volumeOnly: fc.boolean(),
};

/** Every bar a from-scratch fold of `trades` leaves, by interval and bar time (`1m@1709821800`). */
export function barsFolded(trades: readonly Trade[], symbol = 'AAPL'): Map<string, Bar> {
  const fold = foldTrades(undefined, symbol, trades);
  const bars = new Map<string, Bar>();
  for (const { interval, bar } of fold.completed) bars.set(`${interval}@${bar.time}`, bar);
  for (const [interval, { startMs: _s, endMs: _e, ...bar }] of Object.entries(fold.ledger.forming)) {
    bars.set(`${interval}@${bar.time}`, bar);
  }
  return bars;
}

/** Every bar the stores hold of `symbol`, keyed as `barsFolded`'s: the bar store's and the ledger's forming ones. */
export async function barsStored(
  stores: { bars: BarStore; ledgers: LedgerStore<unknown> },
  symbol = 'AAPL',
): Promise<Map<string, Bar>> {
  const bars = new Map<string, Bar>();
  for (const interval of INTERVALS) {
    for (const bar of await stores.bars.query({ symbol, interval }, { limit: 10_000 })) {
      bars.set(`${interval}@${bar.time}`, bar);
    }
  }
  const ledger = (await stores.ledgers.get(symbol))?.ledger;
  for (const [interval, { startMs: _s, endMs: _e, ...bar }] of Object.entries(ledger?.forming ?? {})) {
    bars.set(`${interval}@${bar.time}`, bar);
  }
  return bars;
}
