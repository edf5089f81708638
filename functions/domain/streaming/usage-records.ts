import * as z from 'zod/mini';
import { CHANNEL_NAMES } from '#contracts/websocket';
import type { UsageRow } from './ports.ts';

/**
 * The usage rows' wire and storage form (docs/storage.md#usage-rows): one `ws_message` row per line of
 * newline-delimited JSON, packed into records of at most USAGE_RECORD_BYTES. Firehose concatenates the
 * records it delivers into S3 objects with nothing between them, so every record ends with a newline and an
 * object is NDJSON again; the local file sink appends the same records to its files.
 */

/**
 * A record's size at the most: Firehose Direct PUT bills each record rounded up to the next 5 KB, so records
 * just under 4 KB (about 20 rows of some 200 bytes) waste little of their increment and never take two.
 */
export const USAGE_RECORD_BYTES = 4_096;

/** A row's line: the row with its `type`, as the DynamoDB items had it, and a newline. */
export function usageLine(row: UsageRow): string {
  return `${JSON.stringify({ type: 'ws_message', ...row })}\n`;
}

/** A record of whole lines, and the rows it carries (so a failed record names its rows). */
export interface UsageRecord {
  readonly data: string;
  readonly bytes: number;
  readonly rows: readonly UsageRow[];
}

/**
 * The rows packed in order into records of at most `maxBytes` (UTF-8), whole lines only; a row longer than
 * that on its own (not one the fan-out writes) gets a record to itself.
 */
export function packUsageRecords(rows: readonly UsageRow[], maxBytes = USAGE_RECORD_BYTES): UsageRecord[] {
  const records: UsageRecord[] = [];
  let lines: string[] = [];
  let packed: UsageRow[] = [];
  let bytes = 0;
  const close = () => {
    if (packed.length > 0) records.push({ data: lines.join(''), bytes, rows: packed });
    lines = [];
    packed = [];
    bytes = 0;
  };
  for (const row of rows) {
    const line = usageLine(row);
    const lineBytes = Buffer.byteLength(line);
    if (bytes + lineBytes > maxBytes) close();
    lines.push(line);
    packed.push(row);
    bytes += lineBytes;
  }
  close();
  return records;
}

const usageLineSchema = z.object({
  type: z.literal('ws_message'),
  accountId: z.string().check(z.minLength(1)),
  keyId: z.string().check(z.minLength(1)),
  channel: z.enum(CHANNEL_NAMES),
  symbol: z.optional(z.string()),
  time: z.iso.datetime(),
  messageId: z.string().check(z.minLength(1)),
});

/** The rows of an NDJSON text, and how many of its non-empty lines were not rows (counted, not thrown). */
export function parseUsageLines(text: string): { rows: UsageRow[]; unreadable: number } {
  const rows: UsageRow[] = [];
  let unreadable = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      unreadable++;
      continue;
    }
    const parsed = usageLineSchema.safeParse(value);
    if (!parsed.success) {
      unreadable++;
      continue;
    }
    const { type: _type, symbol, ...row } = parsed.data;
    rows.push(symbol === undefined ? row : { ...row, symbol });
  }
  return { rows, unreadable };
}
