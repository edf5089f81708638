import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import pLimit from 'p-limit';
import { usageDayPrefix } from '#contracts/usage';
import type { UsageRow } from '#domain/streaming/ports';
import { parseUsageLines } from '#domain/streaming/usage-records';
import { daysBetween } from './usage-report.ts';

/** Objects read at once: a month is some 12,000 objects of a minute's rows each. */
const READS_IN_FLIGHT = 16;

/** Where the usage rows' NDJSON objects are: the bucket on AWS, the local stack's folder. */
export interface UsageObjects {
  /** The keys under a prefix (`usage/day=YYYY-MM-DD/`), every page. */
  list(prefix: string): Promise<string[]>;
  read(key: string): Promise<string>;
}

/** The bucket Firehose delivers the rows to (ListObjectsV2, GetObject). */
export function s3UsageObjects(s3: S3Client, bucket: string): UsageObjects {
  return {
    async list(prefix) {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await s3.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
        );
        keys.push(...(page.Contents ?? []).flatMap((object) => (object.Key ? [object.Key] : [])));
        token = page.NextContinuationToken;
      } while (token);
      return keys;
    },
    async read(key) {
      const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return (await object.Body?.transformToString('utf8')) ?? '';
    },
  };
}

/** The local stack's folder of the same layout (scripts/local/usage-files.ts). */
export function fileUsageObjects(root: string): UsageObjects {
  return {
    async list(prefix) {
      const names = await readdir(join(root, prefix)).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return [];
        throw error;
      });
      return names.sort().map((name) => `${prefix}${name}`);
    },
    read: (key) => readFile(join(root, key), 'utf8'),
  };
}

/**
 * The rows pushed on the days from `from` to `to` (UTC, inclusive), of one account or all, each
 * (accountId, messageId) once: a redelivered stream batch, or a record Firehose delivered twice, writes a row
 * again. Firehose files a row under its arrival day, which follows the push by up to its buffer: the day
 * after `to` is read too (and the day before `from`, for a clock a little ahead), and rows are kept by
 * their own push time. Lines that are not rows are counted in `unreadable`.
 */
export async function pushedRows(
  objects: UsageObjects,
  range: { readonly from: string; readonly to: string; readonly account?: string },
): Promise<{ rows: UsageRow[]; unreadable: number }> {
  const DAY_MS = 86_400_000;
  const before = new Date(Date.parse(`${range.from}T00:00:00Z`) - DAY_MS).toISOString().slice(0, 10);
  const after = new Date(Date.parse(`${range.to}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
  const keys = (
    await Promise.all(daysBetween(before, after).map((day) => objects.list(usageDayPrefix(day))))
  ).flat();
  const unique = new Map<string, UsageRow>();
  let unreadable = 0;
  const limit = pLimit(READS_IN_FLIGHT);
  const texts = await Promise.all(keys.map((key) => limit(() => objects.read(key))));
  for (const text of texts) {
    const parsed = parseUsageLines(text);
    unreadable += parsed.unreadable;
    for (const row of parsed.rows) {
      const day = row.time.slice(0, 10);
      if (day < range.from || day > range.to) continue;
      if (range.account !== undefined && row.accountId !== range.account) continue;
      unique.set(`${row.accountId}\u0000${row.messageId}`, row);
    }
  }
  return { rows: [...unique.values()], unreadable };
}
