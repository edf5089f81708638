import type { StoredState } from './ports.ts';
import type { SetupRow } from './setups.ts';

/**
 * Whether `next` may replace `stored`: it derives from a later ledger version, or from the same version at the
 * same or a later instant. A state stored without a version (before versions were kept) is always replaced.
 */
export function supersedes(next: StoredState, stored: StoredState | undefined): boolean {
  if (stored?.ledgerVersion === undefined) return true;
  const version = next.ledgerVersion ?? Number.NEGATIVE_INFINITY;
  if (version !== stored.ledgerVersion) return version > stored.ledgerVersion;
  return next.updatedAtMs >= stored.updatedAtMs;
}

export const setupRowKey = (row: Pick<SetupRow, 'symbol' | 'timeframe'>): string =>
  `${row.symbol}#${row.timeframe}`;

export interface SetupRowChanges {
  readonly put: SetupRow[];
  readonly remove: Pick<SetupRow, 'symbol' | 'timeframe'>[];
}

/** The setup row writes that turn the rows of `before` into those of `after`: new or changed rows, and gone ones. */
export function setupRowChanges(
  before: readonly SetupRow[],
  after: readonly SetupRow[],
  changes: SetupRowChanges = { put: [], remove: [] },
): SetupRowChanges {
  const previous = new Map(before.map((row) => [setupRowKey(row), row]));
  for (const row of after) {
    const old = previous.get(setupRowKey(row));
    if (!old || JSON.stringify(old) !== JSON.stringify(row)) changes.put.push(row);
    previous.delete(setupRowKey(row));
  }
  for (const { symbol, timeframe } of previous.values()) changes.remove.push({ symbol, timeframe });
  return changes;
}
