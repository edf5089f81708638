/**
 * Honest counts on the local stack (docs/candles.md#late-and-early-prints): a replay whose batches come back,
 * both on purpose (records put again after newer ones, as a partial batch response retries them) and by the
 * stream itself (a share of DynamoDB writes throttled, so batches fail and are bisected and delivered again).
 * Every trade each completed delivery received is counted exactly once as applied, folded late, refused with
 * its reason or handed back; a redelivered trade is never counted `late`; the served volume is the tape's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Trade } from '#domain/market-data/bars';
import { startTestStack, type TestStack } from '../support/local-stack.ts';
import { SESSIONS, syntheticTrades, volumeBySession } from '../support/trade-streams.ts';

describe('a replay with redeliveries on the local stack', () => {
  let test: TestStack;
  // The first session only: four trades a minute.
  const trades = syntheticTrades('AAPL', 225, [5, 20, 35, 50], 11).filter(
    ({ timestamp }) => timestamp < Date.parse(`${SESSIONS[1]}T00:00:00Z`),
  );
  const totals = (name: string) => test.stack.metrics.sumOf(name);
  const refused = (reason: string) => test.stack.metrics.sumOf('TradesRefused', reason);

  beforeAll(async () => {
    test = await startTestStack({ dynamoFaults: { throttledWriteShare: 0.05, seed: 3 } });
    // One trade a record: the records a completed delivery received are its trades (IngestBatchSize).
    const records = (batch: readonly Trade[]) =>
      batch.map((trade) => ({ partitionKey: trade.symbol, data: JSON.stringify(trade) }));
    const batches: Trade[][] = [];
    for (let start = 0; start < trades.length; start += 40) batches.push(trades.slice(start, start + 40));
    for (const [index, batch] of batches.entries()) {
      test.stack.trades.put(records(batch));
      // Every fourth batch, the one three batches back comes again: its trades are minutes old by now.
      if (index % 4 === 3) test.stack.trades.put(records(batches[index - 3] as Trade[]));
      await test.stack.trades.flush();
    }
  }, 300_000);
  afterAll(() => test?.stop());

  it('had batches fail and come back on their own, besides the ones put again', () => {
    expect(test.stack.throttledWrites()).toBeGreaterThan(0);
  });

  it('counts every trade received exactly once: applied, folded late, refused by reason, or handed back', () => {
    const received = totals('IngestBatchSize');
    const accounted =
      totals('TradesApplied') + totals('LatePrints') + totals('TradesRefused') + totals('TradesHandedBack');
    expect(received).toBeGreaterThan(trades.length);
    expect(accounted).toBe(received);
    expect(totals('TradesApplied')).toBe(trades.length);
  });

  it('counts the redelivered trades as redeliveries, never as late', () => {
    expect(refused('late')).toBe(0);
    expect(refused('redelivered')).toBeGreaterThan(0);
  });

  it('serves the tape: every trade counted once in the session', async () => {
    const response = await test.get(
      `/candles/AAPL?interval=1d&start=${SESSIONS[0]}&end=${SESSIONS[0]}T23:59:59Z`,
    );
    expect(response.status).toBe(200);
    const served = Object.fromEntries(
      (response.body.bars as { time: number; volume: number }[]).map((bar) => [
        new Date(bar.time * 1000).toISOString().slice(0, 10),
        bar.volume,
      ]),
    );
    expect(served).toEqual(volumeBySession(trades));
  });
});
