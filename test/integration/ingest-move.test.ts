/**
 * The move of a stack deployed before the windowed consumer became the default
 * (docs/operations.md#ingest-consumer-on-aws): the ingest Lambda's handler ingested the stream, then the
 * consumer starts with no saved positions and reads every record the stream retains again. Nothing is lost or
 * doubled, every trade read again is counted as applied before (`duplicate` or `redelivered`, none `late`),
 * the counts add up, and the next trade is applied.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Trade } from '#domain/market-data/bars';
import { startTestStack, type TestStack } from '../support/local-stack.ts';
import { SESSIONS, syntheticTrades } from '../support/trade-streams.ts';

const tape = syntheticTrades('MSFT', 410, [10, 40], 7);
/** What the Lambda ingested, and the stream still retains at the move: the first session. */
const retained = tape.filter(({ timestamp }) => timestamp < Date.parse(`${SESSIONS[1]}T00:00:00Z`));
/** The first trade after the move. */
const next = tape[retained.length] as Trade;

/** Puts `trades` on the stack's stream, one a record, in batches of 40, and waits until they are ingested. */
async function ingest(stack: TestStack, trades: readonly Trade[]): Promise<void> {
  for (let start = 0; start < trades.length; start += 40) {
    stack.stack.trades.put(
      trades
        .slice(start, start + 40)
        .map((trade) => ({ partitionKey: trade.symbol, data: JSON.stringify(trade) })),
    );
  }
  await stack.stack.trades.flush();
}

const total = (stack: TestStack, name: string, reason?: string) => stack.stack.metrics.sumOf(name, reason);

const dailyBars = async (stack: TestStack) =>
  (await stack.get(`/candles/MSFT?interval=1d&start=${SESSIONS[0]}&end=${SESSIONS[1]}T23:59:59Z`)).body;

describe('moving a stack from the ingest Lambda to the windowed consumer', () => {
  let dataDir: string;
  let servedBefore: unknown;
  let moved: TestStack;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mda-ingest-move-'));
    const before = await startTestStack({ dataDir, ingest: 'lambda' });
    try {
      await ingest(before, retained);
      expect(total(before, 'TradesApplied')).toBe(retained.length);
      servedBefore = await dailyBars(before);
    } finally {
      await before.stop();
    }
    moved = await startTestStack({ dataDir, ingest: 'windows' });
    await ingest(moved, retained);
  }, 120_000);
  afterAll(async () => {
    await moved?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('counts every retained trade read again as applied before: none applied, none late, the counts adding up', () => {
    expect(total(moved, 'TradesApplied')).toBe(0);
    // `duplicate`: still among the ledger's remembered trades; `redelivered`: found in the session trade log.
    expect(total(moved, 'TradesRefused', 'duplicate') + total(moved, 'TradesRefused', 'redelivered')).toBe(
      retained.length,
    );
    expect(total(moved, 'TradesRefused', 'redelivered')).toBeGreaterThan(0);
    expect(total(moved, 'TradesRefused', 'late')).toBe(0);
    expect(total(moved, 'LatePrints')).toBe(0);
    const accounted =
      total(moved, 'TradesApplied') +
      total(moved, 'LatePrints') +
      total(moved, 'TradesRefused') +
      total(moved, 'TradesHandedBack');
    expect(accounted).toBe(total(moved, 'IngestBatchSize'));
    expect(total(moved, 'IngestBatchSize')).toBe(retained.length);
  });

  it('serves the same candles as before the move', async () => {
    expect(await dailyBars(moved)).toEqual(servedBefore);
  });

  it('applies the next trade', async () => {
    await ingest(moved, [next]);
    expect(total(moved, 'TradesApplied')).toBe(1);
    const latest = await moved.get('/prices/latest?symbols=MSFT');
    expect(latest.body.items).toEqual([{ symbol: 'MSFT', price: next.price, volume: next.size }]);
  });
});
