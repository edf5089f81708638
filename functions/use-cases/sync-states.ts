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

/** A ledger to derive the state of: with the ledger its commit replaced, when the writer knows it. */
export interface StateSource extends LedgerAtVersion {
  readonly replaced?: SymbolLedger;
}

/**
 * Derives each symbol's state at `nowMs` and writes only what changed: the state item (its stream feeds
 * `states`), unless a newer one is already stored (a writer holding an older ledger version, e.g. a clock tick
 * racing an ingest, loses), then the setup rows of the states written. Used by the ingest path for the
 * symbols it committed and by the clock tick for every symbol (docs/strat.md#stored-states-and-setup-rows).
 *
 * A commit that leaves the state derived at `nowMs` as its replaced ledger's was is skipped without reading
 * the stored state: the ingest's commits mostly move prices, not states, so it reads the states of about
 * one commit in eight. Whatever the stored state then lacks (a period's end the commit's trades did not
 * touch) is the clock tick's to write, within two minutes of it, as for a symbol that did not trade.
 */
export async function syncStates(
  ledgers: readonly StateSource[],
  nowMs: number,
  sectorOf: (symbol: string) => string,
  ports: StateSyncPorts,
): Promise<StoredState[]> {
  const derived = ledgers.flatMap(({ ledger, version, replaced }) => {
    const sector = sectorOf(ledger.symbol);
    const next = deriveSymbolState(ledger, nowMs, sector);
    const unchanged = replaced !== undefined && equalStates(deriveSymbolState(replaced, nowMs, sector), next);
    return unchanged ? [] : [{ symbol: ledger.symbol, version, next }];
  });
  if (derived.length === 0) return [];
  const stored = await ports.states.getMany(derived.map(({ symbol }) => symbol));
  const changed: StoredState[] = [];
  for (const { symbol, version, next } of derived) {
    const previous = stored.get(symbol);
    if (previous && equalStates(previous, next)) continue;
    changed.push({ symbol, ...next, updatedAtMs: nowMs, ledgerVersion: version });
  }
  const written = await ports.states.putNewer(changed);
  const rows = { put: [] as SetupRow[], remove: [] as Pick<SetupRow, 'symbol' | 'timeframe'>[] };
  for (const state of written) setupRowChanges(stored.get(state.symbol)?.setups ?? [], state.setups, rows);
  await ports.setups.write(rows);
  return written;
}

/**
 * Rewrites the setup rows that differ from the stored states (the clock tick, each quarter-hour): rows a writer
 * left behind when it stopped between a state and its rows, or wrote from a state that a newer one replaced
 * meanwhile, converge to the stored states within a quarter-hour.
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
