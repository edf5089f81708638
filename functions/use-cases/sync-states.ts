import type { SymbolLedger } from '#domain/market-data/ledger';
import type { SetupStore, StateStore, StoredState } from '#domain/strat/ports';
import { deriveSymbolState, equalStates, type SetupRow } from '#domain/strat/setups';
import { setupRowChanges } from '#domain/strat/stored-states';
import { TIMEFRAMES } from '#domain/strat/timeframes';

export interface StateSyncPorts {
  readonly states: StateStore;
  readonly setups: SetupStore;
}

/** A ledger and the version it was committed (or read) at. */
export interface LedgerAtVersion {
  readonly ledger: SymbolLedger;
  readonly version: number;
}

/**
 * Derives each symbol's state at `nowMs` and writes only what changed: the state item (its stream feeds
 * `states`), unless a newer one is already stored (a writer holding an older ledger version, e.g. a clock tick
 * racing an ingest, loses), then the setup rows of the states written. Used by the ingest path for the
 * symbols it committed and by the clock tick for every symbol (docs/strat.md#stored-states-and-setup-rows).
 */
export async function syncStates(
  ledgers: readonly LedgerAtVersion[],
  nowMs: number,
  sectorOf: (symbol: string) => string,
  ports: StateSyncPorts,
): Promise<StoredState[]> {
  if (ledgers.length === 0) return [];
  const stored = await ports.states.getMany(ledgers.map(({ ledger }) => ledger.symbol));
  const changed: StoredState[] = [];
  for (const { ledger, version } of ledgers) {
    const next = deriveSymbolState(ledger, nowMs, sectorOf(ledger.symbol));
    const previous = stored.get(ledger.symbol);
    if (previous && equalStates(previous, next)) continue;
    changed.push({ symbol: ledger.symbol, ...next, updatedAtMs: nowMs, ledgerVersion: version });
  }
  const written = await ports.states.putNewer(changed);
  const rows = { put: [] as SetupRow[], remove: [] as Pick<SetupRow, 'symbol' | 'timeframe'>[] };
  for (const state of written) setupRowChanges(stored.get(state.symbol)?.setups ?? [], state.setups, rows);
  await ports.setups.write(rows);
  return written;
}

/**
 * Rewrites the setup rows that differ from the stored states (the clock tick, every minute): rows a writer
 * left behind when it stopped between a state and its rows, or wrote from a state that a newer one replaced
 * meanwhile, converge to the stored states within a minute.
 */
export async function reconcileSetupRows(
  states: ReadonlyMap<string, StoredState>,
  ports: StateSyncPorts,
  rowLimit: number,
): Promise<number> {
  const current = (
    await Promise.all(TIMEFRAMES.map((timeframe) => ports.setups.list(timeframe, rowLimit)))
  ).flat();
  const bySymbol = new Map<string, SetupRow[]>();
  for (const row of current) bySymbol.set(row.symbol, [...(bySymbol.get(row.symbol) ?? []), row]);
  const rows = { put: [] as SetupRow[], remove: [] as Pick<SetupRow, 'symbol' | 'timeframe'>[] };
  for (const [symbol, state] of states) setupRowChanges(bySymbol.get(symbol) ?? [], state.setups, rows);
  await ports.setups.write(rows);
  return rows.put.length + rows.remove.length;
}
