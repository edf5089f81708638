import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { encodeRefusedRecord, type RefusedRecord } from '#domain/market-data/dead-letters';
import type { DeadLetterSink } from '#domain/market-data/ports';

/** SQS's limit of entries per SendMessageBatch. */
const MAX_ENTRIES = 10;
const MAX_ATTEMPTS = 5;
/**
 * A body stays under SQS's 256 KiB message limit: a longer record keeps its first part (its sequence number
 * still finds it whole on the stream while the stream keeps it).
 */
const MAX_DATA_CHARS = 200_000;

/** The trades dead-letter queue (the queue the ingest event source mapping's on-failure destination names). */
export class SqsDeadLetterSink implements DeadLetterSink {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async put(records: readonly RefusedRecord[]): Promise<void> {
    for (let start = 0; start < records.length; start += MAX_ENTRIES) {
      let entries = records.slice(start, start + MAX_ENTRIES).map((record, index) => ({
        Id: String(index),
        MessageBody: encodeRefusedRecord(
          record.data.length > MAX_DATA_CHARS
            ? {
                ...record,
                data: record.data.slice(0, MAX_DATA_CHARS),
                detail: `${record.detail} (truncated)`,
              }
            : record,
        ),
      }));
      for (let attempt = 1; entries.length > 0; attempt++) {
        if (attempt > MAX_ATTEMPTS)
          throw new Error(`SendMessageBatch left ${entries.length} dead letters unsent`);
        const output = await this.client.send(
          new SendMessageBatchCommand({ QueueUrl: this.queueUrl, Entries: entries }),
        );
        const failed = new Set((output.Failed ?? []).map(({ Id }) => Id));
        entries = entries.filter(({ Id }) => failed.has(Id));
      }
    }
  }
}
