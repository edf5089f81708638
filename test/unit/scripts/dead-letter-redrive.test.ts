import { describe, expect, it } from 'vitest';
import { encodeRefusedRecord } from '#domain/market-data/dead-letters';
import { encodeTradeRecord } from '#domain/market-data/trade-records';
import { decodeLetters, verdictOn } from '../../../scripts/lib/dead-letter-redrive.ts';

const nowMs = Date.parse('2024-11-26T15:00:00Z');
const trade = { symbol: 'AAPL', price: 1, size: 1, timestamp: nowMs, tradeId: 't' };
const refused = (reason: 'poison' | 'future', data: string) =>
  encodeRefusedRecord({ reason, detail: 'd', partitionKey: 'AAPL', sequenceNumber: '5', data });
const verdicts = async (bodies: string[], discardPoison = false) =>
  Promise.all(
    decodeLetters(bodies.map((body) => ({ receiptHandle: 'r', body }))).map(({ letter }) =>
      verdictOn(letter, {
        nowMs,
        discardPoison,
        readBatch: async () => [{ data: encodeTradeRecord(trade) }],
      }),
    ),
  );

describe('the redrive verdicts', () => {
  it('redrives a future trade whose time has come, keeps one still ahead of the clock (tolerance included)', async () => {
    const [due, ahead, edge] = await verdicts([
      refused('future', encodeTradeRecord(trade)),
      refused('future', encodeTradeRecord({ ...trade, timestamp: nowMs + 5_001 })),
      refused('future', encodeTradeRecord({ ...trade, timestamp: nowMs + 5_000 })),
    ]);
    expect(due).toMatchObject({ action: 'redrive', trades: [trade] });
    expect(ahead).toMatchObject({ action: 'keep' });
    expect(edge).toMatchObject({ action: 'redrive' });
  });

  it('keeps poison unless told to discard it, and keeps what it cannot read', async () => {
    expect((await verdicts([refused('poison', 'x'), 'not json'])).map(({ action }) => action)).toEqual([
      'keep',
      'keep',
    ]);
    expect((await verdicts([refused('poison', 'x')], true))[0]?.action).toBe('discard');
  });

  it('redrives the trades of a failed batch, read through the batch reader', async () => {
    const batch = JSON.stringify({
      KinesisBatchInfo: { shardId: 's', startSequenceNumber: '1', endSequenceNumber: '2', streamArn: 'arn' },
    });
    expect(await verdicts([batch])).toEqual([
      { action: 'redrive', trades: [trade], why: 'failed batch s 1..2 (1 records)' },
    ]);
  });
});
