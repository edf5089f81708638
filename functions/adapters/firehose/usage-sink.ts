import { type FirehoseClient, PutRecordBatchCommand } from '@aws-sdk/client-firehose';
import { type Backoff, backoffDelayMs } from '#domain/retry/backoff';
import type { UnrecordedUsage, UsageRow, UsageSink } from '#domain/streaming/ports';
import { packUsageRecords, type UsageRecord } from '#domain/streaming/usage-records';

/**
 * PutRecordBatch's own limits (Amazon Data Firehose API reference): at most 500 records and 4 MiB a call.
 * These cannot be raised.
 */
const MAX_RECORDS_PER_CALL = 500;
const MAX_BYTES_PER_CALL = 4 * 1024 ** 2;
/** Calls per group of records before the rows still unsent are handed back as unrecorded. */
const MAX_ATTEMPTS = 6;
const RETRY_BACKOFF: Backoff = { baseMs: 50, capMs: 2_000, jitter: 'full' };

const reason = (error: unknown) =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

/** The records split into PutRecordBatch calls, each within both limits. */
function calls(records: readonly UsageRecord[]): UsageRecord[][] {
  const groups: UsageRecord[][] = [];
  let group: UsageRecord[] = [];
  let bytes = 0;
  for (const record of records) {
    if (group.length === MAX_RECORDS_PER_CALL || bytes + record.bytes > MAX_BYTES_PER_CALL) {
      groups.push(group);
      group = [];
      bytes = 0;
    }
    group.push(record);
    bytes += record.bytes;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/**
 * The usage rows to a Firehose delivery stream (Direct PUT) that buffers them into S3
 * (docs/storage.md#usage-rows): newline-delimited JSON packed into records of at most 4 KB
 * (functions/domain/streaming/usage-records.ts), up to 500 records a call. PutRecordBatch can succeed while
 * some of its records fail (`FailedPutCount`, an `ErrorCode` such as `ServiceUnavailableException` on each
 * failed record's response): only those records are sent again, after the service's backoff, and a call that
 * throws is retried whole. What is still unsent after MAX_ATTEMPTS calls comes back as unrecorded, with the
 * last reason; nothing is dropped silently. A retry may deliver a record twice (Firehose's delivery is at
 * least once): the report counts each (accountId, messageId) once.
 */
export class FirehoseUsageSink implements UsageSink {
  constructor(
    private readonly client: FirehoseClient,
    private readonly streamName: string,
    /** Waits between failed calls; tests pass one that does not wait. */
    private readonly pause: (ms: number) => Promise<void> = (ms) =>
      new Promise((resolve) => setTimeout(resolve, ms)),
  ) {}

  async record(rows: readonly UsageRow[]): Promise<UnrecordedUsage[]> {
    const outcomes = await Promise.all(calls(packUsageRecords(rows)).map((group) => this.put(group)));
    return outcomes.filter((outcome) => outcome !== undefined);
  }

  /** One call's records, retrying the failed ones; the rows of those still failed at the end. */
  private async put(records: readonly UsageRecord[]): Promise<UnrecordedUsage | undefined> {
    let pending = records;
    let lastReason = '';
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      if (attempt > 0) await this.pause(backoffDelayMs(attempt - 1, Math.random(), RETRY_BACKOFF));
      try {
        const output = await this.client.send(
          new PutRecordBatchCommand({
            DeliveryStreamName: this.streamName,
            Records: pending.map((record) => ({ Data: Buffer.from(record.data) })),
          }),
        );
        const responses = output.RequestResponses ?? [];
        const someFailed = (output.FailedPutCount ?? 0) > 0;
        const failed = pending.filter((_, index) => {
          const response = responses[index];
          return response ? response.ErrorCode !== undefined : someFailed;
        });
        const firstError = responses.find((response) => response.ErrorCode !== undefined);
        if (firstError) lastReason = `${firstError.ErrorCode}: ${firstError.ErrorMessage ?? ''}`.trim();
        pending = failed;
      } catch (error) {
        lastReason = reason(error);
      }
      if (pending.length === 0) return undefined;
    }
    return {
      rows: pending.flatMap((record) => record.rows),
      reason: `PutRecordBatch to ${this.streamName} left ${pending.length} records unsent after ${MAX_ATTEMPTS} calls (${lastReason})`,
    };
  }
}
