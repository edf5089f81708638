import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StreamItem, Trade, TradeAmendment } from '#domain/market-data/bars';
import { amendedTrades, type LoggedAmendment } from '#domain/market-data/trade-amendments';
import { foldTrades } from '#domain/strat/trade-fold';
import { ingestTrades } from '#use-cases/ingest-trades';
import {
  amendmentFields,
  barsFolded,
  barsStored,
  OPEN_FRI,
  tapeOf,
  tradeArb,
} from '../../support/amended-tapes.ts';
import { inMemoryIngestPorts } from '../../support/fakes.ts';

const amendmentArb = fc.record({
  ...amendmentFields,
  /** Sent again right after (a redelivery or a provider's duplicate): it must change nothing twice. */
  twice: fc.boolean(),
});

describe('ingestTrades with amendments, over random tapes', () => {
  it('leaves every bar, in the bar store and the ledger, equal to a from-scratch fold of the amended tape', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(tradeArb, { minLength: 1, maxLength: 50 }),
        fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 50 }),
        fc.array(amendmentArb, { minLength: 1, maxLength: 6 }),
        async (drawn, batchSizes, drawnAmendments) => {
          const trades: Trade[] = tapeOf(drawn);
          const friday = trades.filter((trade) => trade.timestamp >= OPEN_FRI);
          // A volume-only trade before any sale is refused (unpriced): no amendment can find it.
          fc.pre(friday.length > 0 && foldTrades(undefined, 'AAPL', trades).unpriced === 0);
          const amendments: TradeAmendment[] = drawnAmendments.map((drawnOne, index) => {
            const target = friday[drawnOne.target % friday.length] as Trade;
            const base = { symbol: 'AAPL', amends: target.tradeId, timestamp: target.timestamp };
            if (drawnOne.cancel) return base;
            return {
              ...base,
              corrected: {
                price: drawnOne.cents / 100,
                size: drawnOne.size,
                tradeId: `c${index}`,
                ...(drawnOne.volumeOnly ? { volumeOnly: true } : {}),
              },
            };
          });
          const tape = amendedTrades(
            trades.map(({ symbol: _symbol, ...trade }) => trade),
            amendments.map(({ symbol: _symbol, ...amendment }): LoggedAmendment => amendment),
          ).map((trade) => ({ symbol: 'AAPL', ...trade }));
          const stores = inMemoryIngestPorts(Date.parse('2024-03-08T21:00:00Z'));
          let position = 0;
          for (const size of batchSizes) {
            if (position >= trades.length) break;
            await ingestTrades(trades.slice(position, position + size), stores);
            position += size;
          }
          if (position < trades.length) await ingestTrades(trades.slice(position), stores);
          for (const [index, amendment] of amendments.entries()) {
            const batch: StreamItem[] = drawnAmendments[index]?.twice ? [amendment, amendment] : [amendment];
            await ingestTrades(batch, stores);
          }

          expect(await barsStored(stores)).toEqual(barsFolded(tape));
        },
      ),
      { numRuns: 150 },
    );
  });
});
