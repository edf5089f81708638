import * as z from 'zod/mini';

/**
 * What the trades dead-letter queue holds (docs/replay.md#dead-letters-and-redrive): records the ingest path
 * set apart itself, each with the record as it came, and the batches Lambda gave up on, which name a shard
 * and a sequence-number range of the trades stream (and, locally, carry the records too).
 */
export type RefusalOfRecord = 'poison' | 'future';

/** A record the ingest path will not apply as it is, kept whole so an operator can inspect and redrive it. */
export interface RefusedRecord {
  readonly reason: RefusalOfRecord;
  readonly detail: string;
  readonly partitionKey: string;
  readonly sequenceNumber: string;
  /** The record's data as it came (UTF-8). */
  readonly data: string;
}

const refusedRecordSchema = z.object({
  refused: z.object({
    reason: z.enum(['poison', 'future']),
    detail: z.string(),
    partitionKey: z.string(),
    sequenceNumber: z.string(),
    data: z.string(),
  }),
});

/** Lambda's on-failure record for a Kinesis batch (the fields the redrive reads). */
const failedBatchSchema = z.object({
  KinesisBatchInfo: z.object({
    shardId: z.string(),
    startSequenceNumber: z.string(),
    endSequenceNumber: z.string(),
    streamArn: z.string(),
  }),
  /** The local stack's addition: the batch's records themselves (its stream keeps none). */
  records: z.optional(z.array(z.object({ partitionKey: z.string(), data: z.string() }))),
});

export type FailedBatch = z.infer<typeof failedBatchSchema>;

export type DeadLetter =
  | { readonly kind: 'refused'; readonly record: RefusedRecord }
  | { readonly kind: 'failed-batch'; readonly batch: FailedBatch }
  | { readonly kind: 'unreadable'; readonly body: string };

export function encodeRefusedRecord(record: RefusedRecord): string {
  return JSON.stringify({ refused: record });
}

/** A dead-letter message's body, read as one of the two kinds (or unreadable: left for an operator). */
export function decodeDeadLetter(body: string): DeadLetter {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { kind: 'unreadable', body };
  }
  const refused = refusedRecordSchema.safeParse(json);
  if (refused.success) return { kind: 'refused', record: refused.data.refused };
  const batch = failedBatchSchema.safeParse(json);
  if (batch.success) return { kind: 'failed-batch', batch: batch.data };
  return { kind: 'unreadable', body };
}
