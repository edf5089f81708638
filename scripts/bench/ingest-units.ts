import type { TableId } from '#contracts/tables';
import { localDocumentClient } from '../local/dynamo.ts';
import type { LocalStack } from '../local/stack.ts';
import { scanLocalTable } from '../local/tables.ts';
import { topLevelBytes, writeUnitsOf } from './write-units.ts';

/** Every item of one of the stack's tables. */
export function scanAll(stack: LocalStack, table: TableId): Promise<Record<string, unknown>[]> {
  return scanLocalTable(localDocumentClient(stack.dynamoEndpoint), table);
}

const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** Stored items' sizes by DynamoDB's rules (write-units.ts): mean and largest bytes, mean write units. */
export function itemSizes(items: readonly Record<string, unknown>[]) {
  return {
    bytesMean: Math.round(mean(items.map(topLevelBytes))),
    // Not Math.max(...): a table of history holds more items than a call takes arguments.
    bytesMax: items.reduce((largest, item) => Math.max(largest, topLevelBytes(item)), 0),
    writeUnits: Number(mean(items.map(writeUnitsOf)).toFixed(2)),
  };
}

/**
 * The ledgers table's items apart: the ledgers (versioned) and the recent-bar snapshots they name
 * (functions/adapters/dynamo/ledger-store.ts).
 */
export async function ledgerItems(stack: LocalStack) {
  const items = await scanAll(stack, 'ledgers');
  return {
    ledgers: items.filter((item) => item.version !== undefined),
    snapshots: items.filter((item) => item.version === undefined),
  };
}

/** The ledger commits so far: each ledger's version counts its writes. */
export async function ledgerCommits(stack: LocalStack): Promise<number> {
  const { ledgers } = await ledgerItems(stack);
  return ledgers.reduce((sum, item) => sum + Number(item.version) + 1, 0);
}

/**
 * A stored trade log item's length as the ledger holds it before writing it (splitLog in
 * functions/domain/market-data/trade-log.ts): the compact entry's JSON, its minute and version from the key.
 */
function heldLength(item: Record<string, unknown>): number {
  const { day: _day, entry, expiresAt: _expiresAt, ...arrays } = item;
  const [minuteMs, version] = String(entry).split('#').map(Number);
  return JSON.stringify({ minuteMs, version, ...arrays }).length;
}

/** The session trade log's items so far: one per symbol, minute and writing commit, never rewritten. */
export function tradeLogItems(stack: LocalStack): Promise<Record<string, unknown>[]> {
  return scanAll(stack, 'tradeLog');
}

/**
 * The write units of what the ingest writes, from the stored items (write-units.ts): a ledger item (with its
 * latest price) per symbol and batch, bars, a state for `stateWrites` of the `ledgerWrites` ledger commits (states
 * are written when they change), and the trade log's `logItems` (read with the ledger commits counted): their
 * sizes, their bytes per trade, and how many of them those commits wrote, `logItemsBefore` being there before
 * (docs/storage.md#the-session-trade-log).
 */
export async function ingestWriteUnits(
  stack: LocalStack,
  writes: {
    readonly stateWrites: number;
    readonly ledgerWrites: number;
    readonly logItems: readonly Record<string, unknown>[];
    readonly logItemsBefore: number;
  },
) {
  const sizesOf = async (table: TableId) => itemSizes(await scanAll(stack, table));
  const { logItems } = writes;
  const [{ ledgers, snapshots }, state, bars] = await Promise.all([
    ledgerItems(stack),
    sizesOf('states'),
    scanAll(stack, 'bars'),
  ]);
  const log = itemSizes(logItems);
  const loggedTrades = logItems.reduce((sum, item) => sum + (item.t as unknown[]).length, 0);
  const heldBytes = logItems.reduce((sum, item) => sum + heldLength(item), 0);
  const bar = bars.length > 0 ? itemSizes(bars) : undefined;
  const ledger = itemSizes(ledgers);
  const snapshot = itemSizes(snapshots);
  return {
    ledgerBytesMean: ledger.bytesMean,
    ledgerBytesMax: ledger.bytesMax,
    writeUnitsPerLedger: ledger.writeUnits,
    recentSnapshotBytesMean: snapshot.bytesMean,
    writeUnitsPerRecentSnapshot: snapshot.writeUnits,
    stateBytesMean: state.bytesMean,
    writeUnitsPerState: state.writeUnits,
    stateWritesPerLedgerWrite: Number((writes.stateWrites / Math.max(1, writes.ledgerWrites)).toFixed(3)),
    tradeLogBytesMean: log.bytesMean,
    // What fills the ledger's hold per trade (its entries' JSON, HELD_LOG_BYTES): the cost model's divisor.
    tradeLogBytesPerTrade: Number((heldBytes / Math.max(1, loggedTrades)).toFixed(1)),
    writeUnitsPerTradeLogItem: log.writeUnits,
    tradeLogItemsPerLedgerWrite: Number(
      ((logItems.length - writes.logItemsBefore) / Math.max(1, writes.ledgerWrites)).toFixed(3),
    ),
    // Bars, where the run completed any.
    ...(bar === undefined ? {} : { barBytesMean: bar.bytesMean, writeUnitsPerBar: bar.writeUnits }),
  };
}
