import { TRADE_TIMING } from '#contracts/ingestion';
import { isAmendment, type StreamItem } from '#domain/market-data/bars';
import { type DeadLetter, decodeDeadLetter, type FailedBatch } from '#domain/market-data/dead-letters';
import { decodeTradeRecord } from '#domain/market-data/trade-records';

/** A message of the trades dead-letter queue, as received. */
export interface QueuedLetter {
  readonly receiptHandle: string;
  readonly body: string;
}

/** Reads the records a failed batch names (from the stream on AWS; locally, the message carries them). */
export type BatchReader = (batch: FailedBatch) => Promise<readonly { data: string }[]>;

/** What the redrive does with one message. */
export type LetterVerdict =
  | { readonly action: 'redrive'; readonly trades: readonly StreamItem[]; readonly why: string }
  | { readonly action: 'keep'; readonly why: string }
  | { readonly action: 'discard'; readonly why: string };

/**
 * The verdict on one dead letter (docs/replay.md#dead-letters-and-redrive): a `future` trade whose time has
 * come, and the trades of a failed batch, are put back on the stream; a `future` trade still ahead of the
 * clock waits; a poison record is kept as evidence (or discarded when the operator says so); a message that
 * is neither kind is kept for a person to read.
 */
export async function verdictOn(
  letter: DeadLetter,
  context: { readonly nowMs: number; readonly readBatch: BatchReader; readonly discardPoison: boolean },
): Promise<LetterVerdict> {
  switch (letter.kind) {
    case 'unreadable':
      return { action: 'keep', why: 'not a dead letter of the trades stream' };
    case 'refused': {
      const { record } = letter;
      if (record.reason === 'poison') {
        return context.discardPoison
          ? { action: 'discard', why: `poison record ${record.sequenceNumber} (discarded on request)` }
          : { action: 'keep', why: `poison record ${record.sequenceNumber}: ${record.detail}` };
      }
      const trades = decodeTradeRecord(record.data) ?? [];
      const ahead = trades.filter(
        (trade) => trade.timestamp > context.nowMs + TRADE_TIMING.futureToleranceMs,
      );
      if (trades.length === 0)
        return { action: 'keep', why: `record ${record.sequenceNumber} holds no trade` };
      if (ahead.length > 0) {
        return {
          action: 'keep',
          why: `trade ${idOf(ahead[0])} is still ahead of the clock (${record.detail})`,
        };
      }
      return { action: 'redrive', trades, why: `future trade ${record.sequenceNumber}, its time has come` };
    }
    case 'failed-batch': {
      const records = await context.readBatch(letter.batch);
      const trades = records.flatMap(({ data }) => decodeTradeRecord(data) ?? []);
      const { shardId, startSequenceNumber, endSequenceNumber } = letter.batch.KinesisBatchInfo;
      return {
        action: 'redrive',
        trades,
        why: `failed batch ${shardId} ${startSequenceNumber}..${endSequenceNumber} (${records.length} records)`,
      };
    }
  }
}

/** The trade an item is or amends. */
const idOf = (item: StreamItem | undefined): string | undefined =>
  item === undefined ? undefined : isAmendment(item) ? item.amends : item.tradeId;

export function decodeLetters(letters: readonly QueuedLetter[]): (QueuedLetter & { letter: DeadLetter })[] {
  return letters.map((queued) => ({ ...queued, letter: decodeDeadLetter(queued.body) }));
}

/** A batch message's own records (the local stack puts them in); none: read them from the stream. */
export function inlineRecords(batch: FailedBatch): readonly { data: string }[] | undefined {
  return batch.records;
}
