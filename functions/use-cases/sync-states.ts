import type { SymbolLedger } from '#domain/market-data/ledger';
import type { SetupStore, StateStore, StoredState } from '#domain/strat/ports';
import {
  derivedSinceLastPeriodEdge,
  deriveSymbolState,
  equalStates,
  type SetupRow,
} from '#domain/strat/setups';
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
 * the stored state, when that ledger was committed since the last period edge: the stored state is then the
 * replaced ledger's, and the ingest's commits mostly move prices, not states, so it reads the states of
 * about one commit in eight. A symbol's first commit after an edge is always compared with the stored state:
 * the period's end changed the state without a trade, and the commit writes it (the clock tick writes it
 * only for the symbols that did not trade).
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
    const unchanged =
      replaced !== undefined &&
      committedSinceLastPeriodEdge(replaced, nowMs) &&
      equalStates(deriveSymbolState(replaced, nowMs, sector), next);
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
 * Whether `ledger` was committed since the last period edge before `nowMs`, judged by its last trade: a
 * commit comes after its trades, so a ledger whose trades all came before the edge may have been committed
 * before it. A print stamped up to TRADE_TIMING.futureToleranceMs ahead of the clock, just after an edge and
 * committed just before it, is the exception: the clock tick's roll writes that state a minute later.
 */
function committedSinceLastPeriodEdge(ledger: SymbolLedger, nowMs: number): boolean {
  return ledger.lastTrade !== undefined && derivedSinceLastPeriodEdge(ledger.lastTrade.timestamp, nowMs);
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
