import type { SymbolLedger } from '#domain/market-data/ledger';
import type { SetupStore, StateStore, StoredState } from '#domain/strat/ports';
import { deriveSymbolState, equalStates, type SetupRow } from '#domain/strat/setups';

export interface StateSyncPorts {
  readonly states: StateStore;
  readonly setups: SetupStore;
}

const rowKey = (row: Pick<SetupRow, 'symbol' | 'timeframe'>) => `${row.symbol}#${row.timeframe}`;

/**
 * Derives each symbol's state at `nowMs` and writes only what changed: the state item (its stream feeds
 * `states`) and the setup rows that appeared, changed or went. Used by the ingest path for the symbols of a
 * batch and by the clock tick for every symbol.
 */
export async function syncStates(
  ledgers: readonly SymbolLedger[],
  nowMs: number,
  sectorOf: (symbol: string) => string,
  ports: StateSyncPorts,
): Promise<StoredState[]> {
  if (ledgers.length === 0) return [];
  const stored = await ports.states.getMany(ledgers.map(({ symbol }) => symbol));
  const changed: StoredState[] = [];
  const put: SetupRow[] = [];
  const remove: Pick<SetupRow, 'symbol' | 'timeframe'>[] = [];
  for (const ledger of ledgers) {
    const next = deriveSymbolState(ledger, nowMs, sectorOf(ledger.symbol));
    const previous = stored.get(ledger.symbol);
    if (previous && equalStates(previous, next)) continue;
    changed.push({ symbol: ledger.symbol, ...next, updatedAtMs: nowMs });
    const before = new Map((previous?.setups ?? []).map((row) => [rowKey(row), row]));
    for (const row of next.setups) {
      const old = before.get(rowKey(row));
      if (!old || JSON.stringify(old) !== JSON.stringify(row)) put.push(row);
      before.delete(rowKey(row));
    }
    remove.push(...[...before.values()].map(({ symbol, timeframe }) => ({ symbol, timeframe })));
  }
  await ports.setups.write({ put, remove });
  await ports.states.putMany(changed);
  return changed;
}
