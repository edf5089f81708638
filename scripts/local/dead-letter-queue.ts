import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { readBody } from './control-plane.ts';
import type { HttpAnswer } from './rest-gateway.ts';

/** Where the local queue answers (under the loopback-only `/_local/` prefix), and its one queue. */
export const LOCAL_SQS_PATH = '/_local/sqs';
export const LOCAL_DEAD_LETTER_QUEUE = 'trade-dead-letters';

const MAX_BODY_BYTES = 2 * 1024 * 1024;
const DEFAULT_VISIBILITY_SECONDS = 30;

interface StoredMessage {
  readonly messageId: string;
  readonly body: string;
  receiptHandle?: string;
  invisibleUntilMs: number;
  receiveCount: number;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

function json(statusCode: number, body: unknown): HttpAnswer {
  return {
    statusCode,
    headers: { 'Content-Type': 'application/x-amz-json-1.0' },
    body: JSON.stringify(body),
  };
}

function clientError(code: string, message: string): HttpAnswer {
  return json(400, { __type: `com.amazonaws.sqs#${code}`, message });
}

/**
 * The local stand-in for the trades dead-letter queue (docs/replay.md#dead-letters-and-redrive): an in-memory
 * queue that speaks SQS's own JSON protocol, so the ingest handler's SQS client and an operator's SQS client talk to
 * it as they talk to SQS on AWS. It serves the calls they make: SendMessage(Batch), ReceiveMessage (with a
 * visibility timeout), ChangeMessageVisibilityBatch, DeleteMessage(Batch) and GetQueueAttributes (the
 * approximate count).
 */
export class LocalDeadLetterQueue {
  private readonly messages: StoredMessage[] = [];

  constructor(private readonly nowMs: () => number = Date.now) {}

  /** The queue's URL on a stack served at `origin`. */
  static urlAt(origin: string): string {
    return `${origin}${LOCAL_SQS_PATH}/000000000000/${LOCAL_DEAD_LETTER_QUEUE}`;
  }

  get size(): number {
    return this.messages.length;
  }

  /** Every message body, oldest first (for tests and the local stack's own senders). */
  bodies(): string[] {
    return this.messages.map(({ body }) => body);
  }

  send(body: string): string {
    const messageId = randomUUID();
    this.messages.push({ messageId, body, invisibleUntilMs: 0, receiveCount: 0 });
    return messageId;
  }

  async handle(request: IncomingMessage): Promise<HttpAnswer> {
    const target = String(request.headers['x-amz-target'] ?? '');
    const text = await readBody(request, MAX_BODY_BYTES);
    if (text === undefined) return clientError('InvalidParameterValue', 'request body over 2 MiB');
    let input: unknown;
    try {
      input = JSON.parse(text || '{}');
    } catch {
      return clientError('InvalidParameterValue', 'the request body is not JSON');
    }
    if (!isRecord(input))
      return clientError('InvalidParameterValue', 'the request body is not a JSON object');
    const entries = input.Entries ?? [];
    if (!Array.isArray(entries) || !entries.every(isRecord)) {
      return clientError('InvalidParameterValue', 'Entries must be a list of objects');
    }
    return this.call(target, input, entries);
  }

  private call(
    target: string,
    input: Record<string, unknown>,
    entries: Record<string, unknown>[],
  ): HttpAnswer {
    switch (target) {
      case 'AmazonSQS.SendMessage': {
        const body = String(input.MessageBody ?? '');
        return json(200, { MessageId: this.send(body), MD5OfMessageBody: md5(body) });
      }
      case 'AmazonSQS.SendMessageBatch': {
        return json(200, {
          Successful: entries.map(({ Id, MessageBody }) => ({
            Id,
            MessageId: this.send(String(MessageBody ?? '')),
            MD5OfMessageBody: md5(String(MessageBody ?? '')),
          })),
          Failed: [],
        });
      }
      case 'AmazonSQS.ReceiveMessage':
        return json(200, { Messages: this.receive(input) });
      case 'AmazonSQS.DeleteMessage':
        this.remove(String(input.ReceiptHandle ?? ''));
        return json(200, {});
      case 'AmazonSQS.DeleteMessageBatch': {
        for (const { ReceiptHandle } of entries) this.remove(String(ReceiptHandle ?? ''));
        return json(200, { Successful: entries.map(({ Id }) => ({ Id })), Failed: [] });
      }
      case 'AmazonSQS.ChangeMessageVisibilityBatch': {
        for (const entry of entries) {
          this.changeVisibility(String(entry.ReceiptHandle ?? ''), Number(entry.VisibilityTimeout));
        }
        return json(200, { Successful: entries.map(({ Id }) => ({ Id })), Failed: [] });
      }
      case 'AmazonSQS.GetQueueAttributes':
        return json(200, { Attributes: { ApproximateNumberOfMessages: String(this.messages.length) } });
      default:
        return clientError('UnsupportedOperation', `the local queue does not serve ${target || 'this call'}`);
    }
  }

  private receive(input: Record<string, unknown>) {
    const max = Math.min(Math.max(Number(input.MaxNumberOfMessages ?? 1), 1), 10);
    const visibilityMs = Number(input.VisibilityTimeout ?? DEFAULT_VISIBILITY_SECONDS) * 1000;
    const now = this.nowMs();
    return this.messages
      .filter((message) => message.invisibleUntilMs <= now)
      .slice(0, max)
      .map((message) => {
        message.receiptHandle = randomUUID();
        message.invisibleUntilMs = now + visibilityMs;
        message.receiveCount += 1;
        return {
          MessageId: message.messageId,
          ReceiptHandle: message.receiptHandle,
          MD5OfBody: md5(message.body),
          Body: message.body,
          Attributes: { ApproximateReceiveCount: String(message.receiveCount) },
        };
      });
  }

  private changeVisibility(receiptHandle: string, seconds: number): void {
    const message = this.messages.find((candidate) => candidate.receiptHandle === receiptHandle);
    if (message) message.invisibleUntilMs = this.nowMs() + Number(seconds) * 1000;
  }

  private remove(receiptHandle: string): void {
    const index = this.messages.findIndex((message) => message.receiptHandle === receiptHandle);
    if (index >= 0) this.messages.splice(index, 1);
  }
}
