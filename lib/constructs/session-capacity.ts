import { Schedule } from 'aws-cdk-lib/aws-applicationautoscaling';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { TimeZone } from 'aws-cdk-lib/core';
import type { TableId } from '#contracts/tables';

/**
 * Provisioned write capacity scheduled for the session (docs/adr/0021-cost-levers.md, lever 3), for the tables
 * the ingest writes on every batch: on by default, `cdk deploy -c sessionCapacity=false` leaves them on demand
 * (as `npm run deploy:local` does: LocalStack has Application Auto Scaling in its Pro image only). Each
 * table follows its load by target tracking at 70% utilization between its bounds; scheduled actions set the
 * lower bound: the open's rate 15 minutes before the open (the open is the day's peak, and a burst over
 * provisioned capacity is throttled), the session's average at 70% an hour later, and the off-session floor
 * 15 minutes after the close. Reads are provisioned too (DynamoDB has no mixed mode), tracked the same way.
 *
 * The figures are write units a second at 8,000 symbols and 100 M trades a day (docs/storage.md#a-trading-day-on-paper):
 * about 1,500 symbol-batches a second on average, twice that at the open, times each item's write units as
 * measured by `npm run bench -- session` (a ledger 1, its latest price within; a state for one batch in five).
 */
export const SESSION_CAPACITY_CONTEXT = 'sessionCapacity';

interface TableCapacity {
  /** Write units a second provisioned at least in the session's first hour: the open's rate. */
  readonly openWrites: number;
  /** Write units a second provisioned at least for the rest of the session: its average rate at 70%. */
  readonly sessionWrites: number;
  /** The most target tracking may provision. */
  readonly maxWrites: number;
  readonly minReads: number;
  readonly maxReads: number;
}

export const SESSION_CAPACITY = {
  // Reads: the ingest's and the clock tick's, and the latest prices (`/prices/latest`, a state push's).
  ledgers: { openWrites: 3_000, sessionWrites: 2_200, maxWrites: 10_000, minReads: 1_500, maxReads: 20_000 },
  states: { openWrites: 700, sessionWrites: 450, maxWrites: 4_000, minReads: 100, maxReads: 10_000 },
} as const satisfies Partial<Record<TableId, TableCapacity>>;

export type SessionCapacityTable = keyof typeof SESSION_CAPACITY;

/** Outside the session a table keeps this share of its session writes: late prints, the clock tick. */
const OFF_SESSION_SHARE = 0.05;
const TARGET_UTILIZATION_PERCENT = 70;
/** New York times, weekdays (holidays keep the session's capacity: a day's cost at most). */
const RAISE_AT = { hour: '9', minute: '15', weekDay: 'MON-FRI' } as const;
const SETTLE_AT = { hour: '10', minute: '15', weekDay: 'MON-FRI' } as const;
const LOWER_AT = { hour: '16', minute: '15', weekDay: 'MON-FRI' } as const;

/** The provisioned throughput a table starts with (the off-session floor), for its `Table` props. */
export function initialCapacity(tableId: SessionCapacityTable) {
  const capacity = SESSION_CAPACITY[tableId];
  return {
    writeCapacity: Math.ceil(capacity.sessionWrites * OFF_SESSION_SHARE),
    readCapacity: capacity.minReads,
  };
}

/** Target tracking and the session's schedule on a provisioned table. */
export function scheduleSessionCapacity(table: Table, tableId: SessionCapacityTable): void {
  const capacity = SESSION_CAPACITY[tableId];
  const offSession = Math.ceil(capacity.sessionWrites * OFF_SESSION_SHARE);
  const writes = table.autoScaleWriteCapacity({ minCapacity: offSession, maxCapacity: capacity.maxWrites });
  writes.scaleOnUtilization({ targetUtilizationPercent: TARGET_UTILIZATION_PERCENT });
  writes.scaleOnSchedule('RaiseBeforeTheOpen', {
    schedule: Schedule.cron(RAISE_AT),
    timeZone: TimeZone.AMERICA_NEW_YORK,
    minCapacity: capacity.openWrites,
  });
  writes.scaleOnSchedule('SettleAfterTheOpen', {
    schedule: Schedule.cron(SETTLE_AT),
    timeZone: TimeZone.AMERICA_NEW_YORK,
    minCapacity: capacity.sessionWrites,
  });
  writes.scaleOnSchedule('LowerAfterTheClose', {
    schedule: Schedule.cron(LOWER_AT),
    timeZone: TimeZone.AMERICA_NEW_YORK,
    minCapacity: offSession,
  });
  const reads = table.autoScaleReadCapacity({
    minCapacity: capacity.minReads,
    maxCapacity: capacity.maxReads,
  });
  reads.scaleOnUtilization({ targetUtilizationPercent: TARGET_UTILIZATION_PERCENT });
}
