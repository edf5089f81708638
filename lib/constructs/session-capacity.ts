import { Schedule } from 'aws-cdk-lib/aws-applicationautoscaling';
import type { IScalableTableAttribute, Table } from 'aws-cdk-lib/aws-dynamodb';
import { TimeZone } from 'aws-cdk-lib/core';
import type { TableId } from '#contracts/tables';

/**
 * Provisioned capacity scheduled for the session (docs/adr/0021-cost-levers.md, lever 3), for the tables
 * the ingest writes on every batch: on by default, `cdk deploy -c sessionCapacity=false` leaves them on demand
 * (as `npm run deploy:local` does: LocalStack has Application Auto Scaling in its Pro image only). Writes and
 * reads alike (DynamoDB has no mixed mode) follow their load by target tracking at 70% utilization between
 * their bounds; scheduled actions set the lower bound: the open's rate 15 minutes before the open (the open is
 * the day's peak, and a burst over provisioned capacity is throttled), the session's average at 70% an hour
 * later, and the off-session floor 15 minutes after the close.
 *
 * The figures are units a second at 8,000 symbols and 100 M trades a day (docs/storage.md#a-trading-day-on-paper):
 * about 2,000 symbol-batches a second on average (a batch spans an invocation, about 0.3 s), twice that at the
 * open, times each item's units as measured by `npm run bench -- session` (a ledger 1 write unit and 1 read
 * unit, strongly consistent; a state 1 write unit and half a read unit, for one commit in eight; a trade log
 * item 1 write unit, about one per commit).
 */
export const SESSION_CAPACITY_CONTEXT = 'sessionCapacity';

/** Units a second of one kind (writes, or reads) on a table: the scheduled floors and target tracking's ceiling. */
interface CapacitySchedule {
  /** Provisioned at least in the session's first hour: the open's rate. */
  readonly open: number;
  /** Provisioned at least for the rest of the session: its average rate at 70%. */
  readonly session: number;
  /** Provisioned at least outside the session. */
  readonly offSession: number;
  /** The most target tracking may provision. */
  readonly max: number;
}

interface TableCapacity {
  readonly writes: CapacitySchedule;
  readonly reads: CapacitySchedule;
}

export const SESSION_CAPACITY = {
  // Writes off-session: late prints and the clock tick's states. Reads: the ingest's, the latest prices
  // (`/prices/latest`, a state push's) off the ledgers, and each quarter-hour the clock tick's burst of every
  // symbol's ledger and state (about 8,000 read units on each table at 8,000 symbols), which the off-session
  // floor's burst capacity (300 s of it) absorbs.
  ledgers: {
    writes: { open: 4_100, session: 2_900, offSession: 150, max: 10_000 },
    reads: { open: 4_100, session: 2_900, offSession: 100, max: 20_000 },
  },
  states: {
    writes: { open: 700, session: 500, offSession: 25, max: 4_000 },
    reads: { open: 350, session: 250, offSession: 50, max: 10_000 },
  },
  // An item per ledger commit and minute, as many as the ledger writes; read only by amendments (a Query of
  // the amended minute, strongly consistent), which the floors' burst capacity absorbs.
  tradeLog: {
    writes: { open: 4_100, session: 2_900, offSession: 150, max: 10_000 },
    reads: { open: 100, session: 50, offSession: 10, max: 4_000 },
  },
} as const satisfies Partial<Record<TableId, TableCapacity>>;

export type SessionCapacityTable = keyof typeof SESSION_CAPACITY;

const TARGET_UTILIZATION_PERCENT = 70;
/** New York times, weekdays (holidays keep the session's capacity: a day's cost at most). */
const RAISE_AT = { hour: '9', minute: '15', weekDay: 'MON-FRI' } as const;
const SETTLE_AT = { hour: '10', minute: '15', weekDay: 'MON-FRI' } as const;
const LOWER_AT = { hour: '16', minute: '15', weekDay: 'MON-FRI' } as const;

/** The provisioned throughput a table starts with (the off-session floors), for its `Table` props. */
export function initialCapacity(tableId: SessionCapacityTable) {
  const { writes, reads } = SESSION_CAPACITY[tableId];
  return { writeCapacity: writes.offSession, readCapacity: reads.offSession };
}

/** Target tracking and the session's schedule on a provisioned table, for its writes and its reads. */
export function scheduleSessionCapacity(table: Table, tableId: SessionCapacityTable): void {
  const { writes, reads } = SESSION_CAPACITY[tableId];
  const bounds = (schedule: CapacitySchedule) => ({
    minCapacity: schedule.offSession,
    maxCapacity: schedule.max,
  });
  scheduleOn(table.autoScaleWriteCapacity(bounds(writes)), writes, 'Writes');
  scheduleOn(table.autoScaleReadCapacity(bounds(reads)), reads, 'Reads');
}

function scheduleOn(
  scaling: IScalableTableAttribute,
  schedule: CapacitySchedule,
  kind: 'Writes' | 'Reads',
): void {
  scaling.scaleOnUtilization({ targetUtilizationPercent: TARGET_UTILIZATION_PERCENT });
  const timeZone = TimeZone.AMERICA_NEW_YORK;
  scaling.scaleOnSchedule(`Raise${kind}BeforeTheOpen`, {
    schedule: Schedule.cron(RAISE_AT),
    timeZone,
    minCapacity: schedule.open,
  });
  scaling.scaleOnSchedule(`Settle${kind}AfterTheOpen`, {
    schedule: Schedule.cron(SETTLE_AT),
    timeZone,
    minCapacity: schedule.session,
  });
  scaling.scaleOnSchedule(`Lower${kind}AfterTheClose`, {
    schedule: Schedule.cron(LOWER_AT),
    timeZone,
    minCapacity: schedule.offSession,
  });
}
