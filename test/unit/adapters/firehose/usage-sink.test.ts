import { FirehoseClient, PutRecordBatchCommand } from '@aws-sdk/client-firehose';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { FirehoseUsageSink } from '#adapters/firehose/usage-sink';
import type { UsageRow } from '#domain/streaming/ports';
import { parseUsageLines, USAGE_RECORD_BYTES } from '#domain/streaming/usage-records';

const firehose = mockClient(FirehoseClient);
afterEach(() => firehose.reset());

const waits: number[] = [];
const sink = () =>
  new FirehoseUsageSink(new FirehoseClient({}), 'usage-stream', async (ms) => {
    waits.push(ms);
  });

const row = (index: number): UsageRow => ({
  accountId: `acct_${index % 7}`,
  keyId: 'key_5b8e0c4f1a2d',
  channel: 'quotes',
  symbol: 'AAPL',
  time: '2024-11-26T15:30:01.500Z',
  messageId: `2024-11-26T15:30:00.000Z#${String(index).padStart(40, 'e')}`,
});

type Sent = { Data?: Uint8Array };
const text = (record: Sent) => Buffer.from(record.Data ?? []).toString('utf8');
const calls = () => firehose.commandCalls(PutRecordBatchCommand).map(({ args }) => args[0].input);
const ok = (count: number) => ({
  FailedPutCount: 0,
  RequestResponses: Array.from({ length: count }, (_, index) => ({ RecordId: `r${index}` })),
});

describe('FirehoseUsageSink', () => {
  it('packs the rows as NDJSON into records of at most 4 KB, each ending with a newline', async () => {
    firehose.on(PutRecordBatchCommand).callsFake(async (input) => ok(input.Records.length));
    const rows = Array.from({ length: 100 }, (_, index) => row(index));

    expect(await sink().record(rows)).toEqual([]);

    const [call] = calls();
    expect(calls()).toHaveLength(1);
    expect(call?.DeliveryStreamName).toBe('usage-stream');
    const records = call?.Records ?? [];
    expect(records.length).toBeGreaterThan(1);
    for (const record of records) {
      expect(record.Data?.byteLength).toBeLessThanOrEqual(USAGE_RECORD_BYTES);
      expect(text(record).endsWith('\n')).toBe(true);
    }
    expect(parseUsageLines(records.map(text).join(''))).toEqual({ rows, unreadable: 0 });
  });

  it('puts at most 500 records in one call', async () => {
    firehose.on(PutRecordBatchCommand).callsFake(async (input) => ok(input.Records.length));
    // A 4 KB record holds about 17 of these rows: 10,000 rows make about 590 records.
    const rows = Array.from({ length: 10_000 }, (_, index) => row(index));

    expect(await sink().record(rows)).toEqual([]);

    expect(
      calls()
        .map((input) => input.Records?.length ?? 0)
        .every((n) => n <= 500),
    ).toBe(true);
    expect(calls().length).toBe(2);
    const sent = calls().flatMap((input) => input.Records ?? []);
    expect(parseUsageLines(sent.map(text).join('')).rows).toHaveLength(10_000);
  });

  it('sends again only the records a call reports failed, after a backoff', async () => {
    const rows = Array.from({ length: 60 }, (_, index) => row(index));
    firehose
      .on(PutRecordBatchCommand)
      .resolvesOnce({
        FailedPutCount: 1,
        RequestResponses: [
          { RecordId: 'r0' },
          { ErrorCode: 'ServiceUnavailableException', ErrorMessage: 'Slow down.' },
          { RecordId: 'r2' },
          { RecordId: 'r3' },
        ],
      })
      .callsFake(async (input) => ok(input.Records.length));
    waits.length = 0;

    expect(await sink().record(rows)).toEqual([]);

    const [first, second] = calls();
    expect(first?.Records).toHaveLength(4);
    expect(second?.Records).toEqual([first?.Records?.[1]]);
    expect(waits).toHaveLength(1);
    const landed = [0, 2, 3].map((index) => first?.Records?.[index] as Sent).concat(second?.Records ?? []);
    expect(parseUsageLines(landed.map(text).join('')).rows).toHaveLength(60);
  });

  it('retries a call that throws, whole', async () => {
    firehose
      .on(PutRecordBatchCommand)
      .rejectsOnce(new Error('socket hang up'))
      .callsFake(async (input) => ok(input.Records.length));

    expect(await sink().record([row(1), row(2)])).toEqual([]);

    expect(calls()).toHaveLength(2);
    expect(calls()[1]?.Records).toEqual(calls()[0]?.Records);
  });

  it('hands back the rows still refused after its attempts, with the reason, rather than drop them', async () => {
    firehose.on(PutRecordBatchCommand).callsFake(async (input) => ({
      FailedPutCount: input.Records.length,
      RequestResponses: input.Records.map(() => ({
        ErrorCode: 'ServiceUnavailableException',
        ErrorMessage: 'Slow down.',
      })),
    }));
    const rows = [row(1), row(2), row(3)];

    const unrecorded = await sink().record(rows);

    expect(unrecorded).toEqual([
      {
        rows,
        reason:
          'PutRecordBatch to usage-stream left 1 records unsent after 6 calls (ServiceUnavailableException: Slow down.)',
      },
    ]);
    expect(calls()).toHaveLength(6);
  });

  it('sends nothing when there is nothing to record', async () => {
    expect(await sink().record([])).toEqual([]);
    expect(calls()).toHaveLength(0);
  });
});
