import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { usageDayPrefix } from '#contracts/usage';
import type { UsageRow } from '#domain/streaming/ports';
import { usageLine } from '#domain/streaming/usage-records';
import { fileUsageObjects, pushedRows, s3UsageObjects } from '../../../scripts/lib/usage-rows.ts';
import { LocalUsageFiles } from '../../../scripts/local/usage-files.ts';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'usage-rows-'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

const row = (time: string, messageId: string, accountId = 'acme'): UsageRow => ({
  accountId,
  keyId: 'k1',
  channel: 'quotes',
  symbol: 'AAPL',
  time,
  messageId,
});

const put = (day: string, name: string, rows: readonly UsageRow[]) =>
  writeFile(join(root, usageDayPrefix(day), name), rows.map(usageLine).join(''));

describe('the local usage files', () => {
  it('appends each row as a line under its own day', async () => {
    const files = new LocalUsageFiles(root);
    const late = row('2024-11-26T23:59:59.900Z', 'a');
    const next = row('2024-11-27T00:00:00.100Z', 'b');

    expect(await files.record([late, next])).toEqual([]);
    expect(await files.record([row('2024-11-26T12:00:00.000Z', 'c')])).toEqual([]);

    const [day26] = await readdir(join(root, usageDayPrefix('2024-11-26')));
    expect(await readFile(join(root, usageDayPrefix('2024-11-26'), day26 ?? ''), 'utf8')).toBe(
      usageLine(late) + usageLine(row('2024-11-26T12:00:00.000Z', 'c')),
    );
    expect(await readdir(join(root, usageDayPrefix('2024-11-27')))).toHaveLength(1);
  });

  it('hands the rows back when it cannot write them', async () => {
    await writeFile(join(root, 'usage'), 'a file where the folder should be');
    const rows = [row('2024-11-26T12:00:00.000Z', 'a')];

    const unrecorded = await new LocalUsageFiles(root).record(rows);

    expect(unrecorded.map((entry) => entry.rows)).toEqual([rows]);
  });
});

describe('pushedRows', () => {
  it('reads the days of the range and the day after, keeps rows by push time, each (account, message) once', async () => {
    const files = new LocalUsageFiles(root);
    await files.record([row('2024-11-25T23:59:59.000Z', 'before')]);
    await files.record([row('2024-11-26T10:00:00.000Z', 'm1'), row('2024-11-26T10:00:00.000Z', 'm2')]);
    // Pushed at 23:59:59 on the 26th, delivered (filed) after midnight.
    const late = row('2024-11-26T23:59:59.000Z', 'm3');
    await files.record([row('2024-11-27T00:00:30.000Z', 'after')]);
    await put('2024-11-27', 'late.ndjson', [late]);
    // A redelivery: m1 again; and another account's message with the same id.
    await put('2024-11-26', 'again.ndjson', [
      row('2024-11-26T10:00:01.000Z', 'm1'),
      row('2024-11-26T10:00:00.000Z', 'm1', 'globex'),
    ]);

    const all = await pushedRows(fileUsageObjects(root), { from: '2024-11-26', to: '2024-11-26' });
    expect(all.unreadable).toBe(0);
    expect(all.rows.map(({ accountId, messageId }) => `${accountId} ${messageId}`).sort()).toEqual([
      'acme m1',
      'acme m2',
      'acme m3',
      'globex m1',
    ]);

    const acme = await pushedRows(fileUsageObjects(root), {
      from: '2024-11-26',
      to: '2024-11-26',
      account: 'acme',
    });
    expect(acme.rows).toHaveLength(3);
  });

  it('counts the lines that are not rows, and finds nothing on days without files', async () => {
    await new LocalUsageFiles(root).record([row('2024-11-26T10:00:00.000Z', 'm1')]);
    await writeFile(join(root, usageDayPrefix('2024-11-26'), 'torn.ndjson'), '{"type":"ws_mess');

    expect(await pushedRows(fileUsageObjects(root), { from: '2024-11-26', to: '2024-11-26' })).toEqual({
      rows: [row('2024-11-26T10:00:00.000Z', 'm1')],
      unreadable: 1,
    });
    expect(await pushedRows(fileUsageObjects(root), { from: '2020-01-01', to: '2020-01-02' })).toEqual({
      rows: [],
      unreadable: 0,
    });
  });
});

describe('the usage bucket', () => {
  const s3 = mockClient(S3Client);
  afterEach(() => s3.reset());

  it('lists every page of a day prefix and reads each object as text', async () => {
    const prefix = usageDayPrefix('2024-11-26');
    s3.on(ListObjectsV2Command, {
      Bucket: 'usage-bucket',
      Prefix: prefix,
      ContinuationToken: undefined,
    }).resolves({
      Contents: [{ Key: `${prefix}a` }],
      NextContinuationToken: 'page-2',
    });
    s3.on(ListObjectsV2Command, {
      Bucket: 'usage-bucket',
      Prefix: prefix,
      ContinuationToken: 'page-2',
    }).resolves({
      Contents: [{ Key: `${prefix}b` }],
    });
    s3.on(GetObjectCommand, { Bucket: 'usage-bucket', Key: `${prefix}b` }).resolves({
      Body: { transformToString: async () => usageLine(row('2024-11-26T10:00:00.000Z', 'm1')) } as never,
    });
    const objects = s3UsageObjects(new S3Client({}), 'usage-bucket');

    expect(await objects.list(prefix)).toEqual([`${prefix}a`, `${prefix}b`]);
    expect(await objects.read(`${prefix}b`)).toBe(usageLine(row('2024-11-26T10:00:00.000Z', 'm1')));
  });
});
