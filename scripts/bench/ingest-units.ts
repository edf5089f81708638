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

/** The ledger commits so far: each ledger's version counts its writes. */
export async function ledgerCommits(stack: LocalStack): Promise<number> {
  return (await scanAll(stack, 'ledgers')).reduce((sum, item) => sum + Number(item.version ?? 0) + 1, 0);
}

/**
 * The write units of what the ingest writes, from the stored items (write-units.ts): a ledger and a price item
 * per symbol and batch, bars, and a state for `stateWrites` of the `ledgerWrites` ledger commits (states are
 * written when they change).
 */
export async function ingestWriteUnits(
  stack: LocalStack,
  writes: { readonly stateWrites: number; readonly ledgerWrites: number },
) {
  const [ledgers, prices, states, bars] = await Promise.all([
    scanAll(stack, 'ledgers'),
    scanAll(stack, 'prices'),
    scanAll(stack, 'states'),
    scanAll(stack, 'bars'),
  ]);
  return {
    ledgerBytesMean: Math.round(mean(ledgers.map(topLevelBytes))),
    ledgerBytesMax: Math.max(...ledgers.map(topLevelBytes)),
    writeUnitsPerLedger: Number(mean(ledgers.map(writeUnitsOf)).toFixed(2)),
    priceBytesMean: Math.round(mean(prices.map(topLevelBytes))),
    writeUnitsPerPrice: Number(mean(prices.map(writeUnitsOf)).toFixed(2)),
    stateBytesMean: Math.round(mean(states.map(topLevelBytes))),
    writeUnitsPerState: Number(mean(states.map(writeUnitsOf)).toFixed(2)),
    stateWritesPerLedgerWrite: Number((writes.stateWrites / Math.max(1, writes.ledgerWrites)).toFixed(3)),
    ...(bars.length > 0
      ? {
          barBytesMean: Math.round(mean(bars.map(topLevelBytes))),
          writeUnitsPerBar: Number(mean(bars.map(writeUnitsOf)).toFixed(2)),
        }
      : {}),
  };
}
