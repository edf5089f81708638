import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { SqsDeadLetterSink } from '#adapters/sqs/dead-letter-sink';
import { decodeDeadLetter, type RefusedRecord } from '#domain/market-data/dead-letters';

const record = (index: number): RefusedRecord => ({
  reason: 'poison',
  detail: 'not a trade record',
  partitionKey: 'AAPL',
  sequenceNumber: String(index),
  data: `garbage ${index}`,
});

describe('SqsDeadLetterSink', () => {
  it('sends ten per call and sends again the entries SQS failed, until none is left', async () => {
    const sqs = mockClient(SQSClient);
    sqs
      .on(SendMessageBatchCommand)
      .resolvesOnce({ Successful: [], Failed: [{ Id: '3', SenderFault: false, Code: 'InternalError' }] })
      .resolves({ Successful: [], Failed: [] });
    await new SqsDeadLetterSink(new SQSClient({}), 'https://queue').put(
      Array.from({ length: 12 }, (_, i) => record(i)),
    );
    const calls = sqs.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input.Entries ?? []);
    expect(calls.map((entries) => entries.length)).toEqual([10, 1, 2]);
    const resent = decodeDeadLetter(calls[1]?.[0]?.MessageBody ?? '');
    expect(resent).toEqual({ kind: 'refused', record: record(3) });
  });

  it('cuts a record too long for one message, and says so', async () => {
    const sqs = mockClient(SQSClient);
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    await new SqsDeadLetterSink(new SQSClient({}), 'https://queue').put([
      { ...record(1), data: 'x'.repeat(300_000) },
    ]);
    const body = sqs.commandCalls(SendMessageBatchCommand)[0]?.args[0].input.Entries?.[0]?.MessageBody ?? '';
    expect(body.length).toBeLessThan(256 * 1024);
    expect(decodeDeadLetter(body)).toMatchObject({ record: { detail: 'not a trade record (truncated)' } });
  });
});
