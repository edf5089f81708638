import { DeleteMessageBatchCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeDeadLetter } from '#domain/market-data/dead-letters';
import { LOCAL_SQS_PATH, LocalDeadLetterQueue } from '../../scripts/local/dead-letter-queue.ts';
import { LOCAL_AWS } from '../../scripts/local/dynamo.ts';
import { startTestStack, type TestStack } from '../support/local-stack.ts';

let test: TestStack;
beforeAll(async () => {
  test = await startTestStack();
});
afterAll(() => test?.stop());

const at = Date.parse('2024-11-26T15:00:00Z');
const record = (value: unknown) => ({
  partitionKey: 'AAPL',
  data: typeof value === 'string' ? value : JSON.stringify(value),
});

describe('the trades dead-letter queue, locally', () => {
  it('receives a poison record and a future-stamped trade whole, readable by the SQS client, and nothing else', async () => {
    const poison = record('{"symbol":"AAPL","price":');
    const future = record({
      symbol: 'AAPL',
      price: 999,
      size: 1,
      timestamp: Date.now() + 86_400_000,
      tradeId: 'f',
    });
    const put = await test.request('/_local/records', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        records: [
          record({ symbol: 'AAPL', price: 100, size: 5, timestamp: at, tradeId: '1' }),
          poison,
          future,
          record({ symbol: 'AAPL', price: 101, size: 5, timestamp: at + 1000, tradeId: '2' }),
        ],
      }),
    });
    expect(put.status).toBe(200);

    const origin = new URL(test.stack.restUrl).origin;
    const sqs = new SQSClient({
      region: LOCAL_AWS.region,
      endpoint: `${origin}${LOCAL_SQS_PATH}`,
      credentials: { accessKeyId: LOCAL_AWS.accessKeyId, secretAccessKey: LOCAL_AWS.secretAccessKey },
    });
    const queueUrl = LocalDeadLetterQueue.urlAt(origin);
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }),
    );
    const letters = Messages.map(({ Body }) => decodeDeadLetter(Body ?? ''));
    expect(letters).toEqual([
      { kind: 'refused', record: expect.objectContaining({ reason: 'poison', data: poison.data }) },
      { kind: 'refused', record: expect.objectContaining({ reason: 'future', data: future.data }) },
    ]);

    // The two good trades are applied; the future one never became the price.
    const prices = await test.get('/prices/latest?symbols=AAPL');
    expect(prices.body.items[0]).toMatchObject({ price: 101 });

    await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: Messages.map(({ ReceiptHandle }, index) => ({ Id: String(index), ReceiptHandle })),
      }),
    );
    expect(test.stack.deadLetterQueue.size).toBe(0);
  });
});
