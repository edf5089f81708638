import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LocalDeadLetterQueue } from '#scripts/local/dead-letter-queue';

function call(target: string, body: string): IncomingMessage {
  return Object.assign(Readable.from([Buffer.from(body)]), {
    headers: { 'x-amz-target': `AmazonSQS.${target}` },
  }) as unknown as IncomingMessage;
}

describe('LocalDeadLetterQueue: malformed calls', () => {
  it.each([
    ['SendMessageBatch', '{"Entries": 5}'],
    ['SendMessageBatch', '{"Entries": [null]}'],
    ['DeleteMessageBatch', '{"Entries": "x"}'],
    ['ChangeMessageVisibilityBatch', '{"Entries": {"constructor": 1}}'],
    ['SendMessage', 'null'],
    ['ReceiveMessage', '[1]'],
    ['SendMessage', '"text"'],
  ])('answers %s with %s as a client error (400), as SQS does', async (target, body) => {
    const answer = await new LocalDeadLetterQueue().handle(call(target, body));
    expect(answer.statusCode).toBe(400);
    expect(JSON.parse(answer.body).__type).toMatch(/^com\.amazonaws\.sqs#/);
  });

  it('still serves a well-formed batch', async () => {
    const queue = new LocalDeadLetterQueue();
    const answer = await queue.handle(call('SendMessageBatch', '{"Entries":[{"Id":"1","MessageBody":"m"}]}'));
    expect(answer.statusCode).toBe(200);
    expect(queue.bodies()).toEqual(['m']);
  });
});
