import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Trade } from '#domain/market-data/bars';
import type { DeadLetterSink } from '#domain/market-data/ports';
import { encodeTradeRecord } from '#domain/market-data/trade-records';
import { foldTrades } from '#domain/strat/trade-fold';
import type { IngestOutcome } from '#use-cases/ingest-trades';
import { type ShardRecord, WindowedIngest, type WindowOutcome } from '#use-cases/ingest-windows';
import { barsFolded, barsStored, tapeOf, tradeArb } from '../../support/amended-tapes.ts';
import { deadLetterSink, inMemoryIngestPorts, RecordingQuotes } from '../../support/fakes.ts';

/** Two symbols share a shard, so one's commit waits for the other's before the shard's position moves. */
const SHARD_OF = { AAPL: 'shard-0', SPY: 'shard-0', MSFT: 'shard-1' } as const;
type Symbol = keyof typeof SHARD_OF;
const SYMBOLS = Object.keys(SHARD_OF) as Symbol[];

/**
 * Each trade its own record, each shard's numbered from 1 in time order; all shards' records in time order. A
 * record that is no trade follows the trades whose index `poisonAfter` holds.
 */
function streamOf(tapes: ReadonlyMap<Symbol, Trade[]>, poisonAfter: ReadonlySet<number>): ShardRecord[] {
  const trades = [...tapes.values()].flat().sort((a, b) => a.timestamp - b.timestamp);
  const next = new Map<string, number>();
  const recordOf = (shardId: string, partitionKey: string, data: string): ShardRecord => {
    const sequence = (next.get(shardId) ?? 0) + 1;
    next.set(shardId, sequence);
    return { shardId, partitionKey, sequenceNumber: String(sequence), data };
  };
  return trades.flatMap((trade, index) => {
    const shardId = SHARD_OF[trade.symbol as Symbol];
    const record = recordOf(shardId, trade.symbol, encodeTradeRecord(trade));
    return poisonAfter.has(index) ? [record, recordOf(shardId, trade.symbol, '{not a trade')] : [record];
  });
}

const accounted = (outcome: IngestOutcome) =>
  outcome.applied +
  outcome.latePrints +
  Object.values(outcome.refused).reduce((sum, count) => sum + count, 0) +
  outcome.handedBack;

/**
 * The stores' writes, the dead letters and the checkpoint saves, stopping (throwing, then refusing everything)
 * at call `stopAt`.
 */
function stoppingAt(
  stores: ReturnType<typeof inMemoryIngestPorts>,
  deadLetters: DeadLetterSink,
  save: (positions: ReadonlyMap<string, string>) => Promise<void>,
  stopAt: number,
) {
  let calls = 0;
  const stopping =
    <Args extends unknown[], Result>(write: (...args: Args) => Promise<Result>) =>
    async (...args: Args): Promise<Result> => {
      calls++;
      if (calls >= stopAt) throw new Error('the consumer stopped here');
      return write(...args);
    };
  const wrap = <Store extends object>(store: Store, method: keyof Store & string): Store =>
    Object.assign(Object.create(store) as Store, {
      [method]: stopping((store[method] as (...args: unknown[]) => Promise<unknown>).bind(store)),
    });
  return {
    ports: {
      ...stores,
      ledgers: wrap(stores.ledgers, 'put'),
      bars: wrap(stores.bars, 'putMany'),
      tradeLog: wrap(stores.tradeLog, 'write'),
      states: wrap(stores.states, 'putNewer'),
    },
    deadLetters: wrap(deadLetters, 'put'),
    save: stopping(save),
    stopped: () => calls >= stopAt,
  };
}

describe('WindowedIngest stopped anywhere and started again from its positions', () => {
  it('leaves every bar and price as a from-scratch fold of each tape, and counts each commit’s trades once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.tuple(...SYMBOLS.map(() => fc.array(tradeArb, { minLength: 1, maxLength: 20 }))),
        fc.array(
          fc.record({
            records: fc.integer({ min: 0, max: 6 }),
            wallStepMs: fc.integer({ min: 0, max: 700 }),
          }),
          {
            minLength: 1,
            maxLength: 30,
          },
        ),
        fc.integer({ min: 1, max: 80 }),
        fc.uniqueArray(fc.nat({ max: 60 }), { maxLength: 3 }),
        async (drawn, windows, stopAt, poisonAfter) => {
          const tapes = new Map(
            SYMBOLS.map((symbol, index) => [
              symbol,
              tapeOf(drawn[index] ?? []).map((trade) => ({
                ...trade,
                symbol,
                tradeId: `${symbol}-${trade.tradeId}`,
              })),
            ]),
          );
          // A volume-only trade before any sale is refused (unpriced), which a from-scratch fold leaves out too.
          fc.pre([...tapes].every(([symbol, tape]) => foldTrades(undefined, symbol, tape).unpriced === 0));
          const stream = streamOf(tapes, new Set(poisonAfter));
          const letters = deadLetterSink();
          const stores = inMemoryIngestPorts(Date.parse('2024-03-08T21:00:00Z'));
          const positions = new Map<string, string>();
          const save = async (advanced: ReadonlyMap<string, string>) => {
            for (const [shardId, sequenceNumber] of advanced) positions.set(shardId, sequenceNumber);
          };
          let wallMs = 0;
          const outcomes: WindowOutcome[] = [];
          const consumer = (
            ports: Parameters<typeof stoppingAt>[0],
            deadLetters: DeadLetterSink,
            saving: typeof save,
          ) =>
            new WindowedIngest(
              { ...ports, deadLetters, checkpoints: { save: saving } },
              { commitIntervalMs: 1_000, windowMs: 150, wallClockMs: () => wallMs },
            );
          const run = async (ingest: WindowedIngest, records: readonly ShardRecord[]) => {
            let position = 0;
            for (const { records: count, wallStepMs } of windows) {
              wallMs += wallStepMs;
              outcomes.push(
                await ingest.window(records.slice(position, position + count), new RecordingQuotes()),
              );
              position += count;
            }
            outcomes.push(await ingest.window(records.slice(position)));
            const drained = await ingest.drain();
            outcomes.push({ quotes: 0, poison: 0, ...drained });
          };

          const first = stoppingAt(stores, letters.sink, save, stopAt);
          await run(consumer(first.ports, first.deadLetters, first.save), stream).catch((error: Error) => {
            if (!first.stopped()) throw error;
          });
          // Whatever the stopped consumer left running settles before the next one starts.
          await new Promise((resolve) => setImmediate(resolve));
          const unread = (record: ShardRecord) =>
            Number(record.sequenceNumber) > Number(positions.get(record.shardId) ?? 0);
          await run(consumer(stores, letters.sink, save), stream.filter(unread));

          for (const [symbol, tape] of tapes) {
            expect(await barsStored(stores, symbol)).toEqual(barsFolded(tape, symbol));
            const price = (await stores.ledgers.get(symbol))?.ledger.price;
            expect(price).toEqual(foldTrades(undefined, symbol, tape).ledger.price);
          }
          const lastOf = (shardId: string) =>
            stream.filter((record) => record.shardId === shardId).at(-1)?.sequenceNumber;
          expect(positions).toEqual(
            new Map([...new Set(Object.values(SHARD_OF))].map((shardId) => [shardId, lastOf(shardId)])),
          );
          const poison = stream.filter(({ data }) => data.startsWith('{not'));
          expect(
            new Set(
              letters.letters.map(({ partitionKey, sequenceNumber }) => `${partitionKey}#${sequenceNumber}`),
            ),
          ).toEqual(
            new Set(poison.map(({ partitionKey, sequenceNumber }) => `${partitionKey}#${sequenceNumber}`)),
          );
          for (const { committed, committedItems } of outcomes) {
            expect(committed === undefined ? 0 : accounted(committed)).toBe(committedItems);
          }
          if (!first.stopped()) {
            const applied = outcomes.reduce((sum, { committed }) => sum + (committed?.applied ?? 0), 0);
            expect(applied).toBe(stream.length - poison.length);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
