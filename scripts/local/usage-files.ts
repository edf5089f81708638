import { appendFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { usageDayPrefix } from '#contracts/usage';
import type { UnrecordedUsage, UsageRow, UsageSink } from '#domain/streaming/ports';
import { packUsageRecords } from '#domain/streaming/usage-records';

/**
 * The local stack's usage sink, in place of the Firehose stream (docs/storage.md#usage-rows): the same NDJSON
 * lines in the same day partitions, `<root>/usage/day=YYYY-MM-DD/rows-<pid>.ndjson`, appended as the fan-out
 * records them. The day is the row's own (the service clock's), where Firehose uses its arrival time: here
 * there is no buffer between the two. `npm run usage` reads these files as it reads the bucket on AWS.
 */
export class LocalUsageFiles implements UsageSink {
  constructor(private readonly root: string) {}

  async record(rows: readonly UsageRow[]): Promise<UnrecordedUsage[]> {
    const byDay = new Map<string, UsageRow[]>();
    for (const row of rows) {
      const day = row.time.slice(0, 10);
      const list = byDay.get(day);
      if (list) list.push(row);
      else byDay.set(day, [row]);
    }
    const unrecorded: UnrecordedUsage[] = [];
    for (const [day, dayRows] of byDay) {
      const folder = join(this.root, usageDayPrefix(day));
      try {
        await mkdir(folder, { recursive: true });
        const lines = packUsageRecords(dayRows).map((record) => record.data);
        await appendFile(join(folder, `rows-${process.pid}.ndjson`), lines.join(''));
      } catch (error) {
        unrecorded.push({ rows: dayRows, reason: error instanceof Error ? error.message : String(error) });
      }
    }
    return unrecorded;
  }
}
