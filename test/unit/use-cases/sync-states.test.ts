import { describe, expect, it, vi } from 'vitest';
import { deriveSymbolState, equalStates } from '#domain/strat/setups';
import { foldTrades } from '#domain/strat/trade-fold';
import { reconcileSetupRows, syncStates } from '#use-cases/sync-states';
import { trade, tradeIds } from '../../support/builders.ts';
import { InMemorySetupStore, InMemoryStateStore } from '../../support/fakes.ts';

const at = (day: string, hhmm: string) => Date.parse(`${day}T${hhmm}:00Z`);
/** The ids of the file's one scenario, built once. */
const scenarioIds = tradeIds();

/** An outside day and an inside day; a later trade takes the third day above the inside day's high. */
const older = foldTrades(undefined, 'AAPL', [
  trade(at('2024-11-18', '15:00'), 98, { size: 1, ids: scenarioIds }),
  trade(at('2024-11-18', '15:01'), 102, { size: 1, ids: scenarioIds }),
  trade(at('2024-11-19', '15:00'), 100, { size: 1, ids: scenarioIds }),
  trade(at('2024-11-19', '15:01'), 105, { size: 1, ids: scenarioIds }),
  trade(at('2024-11-19', '15:02'), 95, { size: 1, ids: scenarioIds }),
  trade(at('2024-11-20', '15:00'), 101, { size: 1, ids: scenarioIds }),
  trade(at('2024-11-20', '15:01'), 103, { size: 1, ids: scenarioIds }),
  trade(at('2024-11-20', '15:02'), 99, { size: 1, ids: scenarioIds }),
  trade(at('2024-11-21', '15:00'), 102, { size: 1, ids: scenarioIds }),
]).ledger;
const newer = foldTrades(older, 'AAPL', [
  trade(at('2024-11-21', '15:30'), 104, { size: 1, ids: scenarioIds }),
]).ledger;
const now = at('2024-11-21', '16:00');
const ports = () => ({ states: new InMemoryStateStore(), setups: new InMemorySetupStore() });
const sector = () => 'Information Technology';

describe('syncStates', () => {
  it('never lets a writer holding an older ledger version overwrite a newer state (a clock tick racing ingest)', async () => {
    const stores = ports();
    await syncStates([{ ledger: newer, version: 1 }], now, sector, stores);
    const fromNewer = stores.states.states.get('AAPL');

    const written = await syncStates([{ ledger: older, version: 0 }], now + 60_000, sector, stores);

    expect(written).toEqual([]);
    expect(stores.states.states.get('AAPL')).toEqual(fromNewer);
    expect(fromNewer?.setups.find((row) => row.timeframe === 'D')).toMatchObject({ in_force: true });
  });

  it('lets the same version re-derived later replace the state', async () => {
    const stores = ports();
    await syncStates([{ ledger: newer, version: 1 }], now, sector, stores);
    const nextDay = at('2024-11-22', '15:00');
    const written = await syncStates([{ ledger: newer, version: 1 }], nextDay, sector, stores);
    expect(written.map(({ symbol, updatedAtMs }) => ({ symbol, updatedAtMs }))).toEqual([
      { symbol: 'AAPL', updatedAtMs: nextDay },
    ]);
  });

  it('writes the setup rows of the states it wrote', async () => {
    const stores = ports();
    await syncStates([{ ledger: newer, version: 1 }], now, sector, stores);
    expect(await stores.setups.list('D', 10)).toEqual(
      stores.states.states.get('AAPL')?.setups.filter((row) => row.timeframe === 'D'),
    );
  });
});

describe('syncStates for a commit whose replaced ledger is known (the ingest)', () => {
  /** Another trade at the last price, in the same minute: volume only, the derived state stays as it was. */
  const quiet = foldTrades(newer, 'AAPL', [
    trade(at('2024-11-21', '15:30'), 104, { size: 5, ids: scenarioIds }),
  ]).ledger;

  /** In the quarter-hour of `newer`'s last trade (15:30): no period has ended since it was committed. */
  const sameQuarterHour = at('2024-11-21', '15:40');

  it('reads no stored state and writes nothing when the commit left the derived state as it was', async () => {
    const stores = ports();
    await syncStates([{ ledger: newer, version: 1 }], sameQuarterHour, sector, stores);
    const reads = vi.spyOn(stores.states, 'getMany');

    const written = await syncStates(
      [{ ledger: quiet, version: 2, replaced: newer }],
      sameQuarterHour,
      sector,
      stores,
    );

    expect(written).toEqual([]);
    expect(reads).not.toHaveBeenCalled();
  });

  it("writes, at a symbol's first commit after a quarter-hour, the state the period's end changed", async () => {
    const stores = ports();
    await syncStates([{ ledger: newer, version: 1 }], sameQuarterHour, sector, stores);
    const before = stores.states.states.get('AAPL');
    // A trade of the quarter-hour that ended at 15:45, committed after it: volume only.
    const lateInQuarter = foldTrades(newer, 'AAPL', [
      trade(at('2024-11-21', '15:44'), 104, { size: 5, ids: scenarioIds }),
    ]).ledger;
    const afterEdge = at('2024-11-21', '15:46');
    const stateAfterEdge = deriveSymbolState(lateInQuarter, afterEdge, sector());
    // The commit changed nothing a trade can change, but the 15:45 edge changed the stored state.
    expect(equalStates(deriveSymbolState(newer, afterEdge, sector()), stateAfterEdge)).toBe(true);
    expect(before && equalStates(before, stateAfterEdge)).toBe(false);

    const written = await syncStates(
      [{ ledger: lateInQuarter, version: 2, replaced: newer }],
      afterEdge,
      sector,
      stores,
    );

    expect(written.map(({ ledgerVersion, updatedAtMs }) => ({ ledgerVersion, updatedAtMs }))).toEqual([
      { ledgerVersion: 2, updatedAtMs: afterEdge },
    ]);
    const stored = stores.states.states.get('AAPL');
    expect(stored && equalStates(stored, stateAfterEdge)).toBe(true);
  });

  it('reads and writes the state a commit changed', async () => {
    const stores = ports();
    await syncStates([{ ledger: older, version: 0 }], now, sector, stores);
    const reads = vi.spyOn(stores.states, 'getMany');

    const written = await syncStates([{ ledger: newer, version: 1, replaced: older }], now, sector, stores);

    expect(reads).toHaveBeenCalledWith(['AAPL']);
    expect(written.map(({ ledgerVersion }) => ledgerVersion)).toEqual([1]);
    expect(stores.states.states.get('AAPL')?.setups.find((row) => row.timeframe === 'D')).toMatchObject({
      in_force: true,
    });
  });
});

describe('reconcileSetupRows', () => {
  it('brings rows left behind by a writer that stopped between a state and its rows back to the stored state', async () => {
    const stores = ports();
    await syncStates([{ ledger: older, version: 0 }], now, sector, stores);
    // A writer stored the newer state, then stopped before its rows.
    const rowsBefore = [...stores.setups.rows.values()];
    await syncStates([{ ledger: newer, version: 1 }], now, sector, {
      states: stores.states,
      setups: { list: stores.setups.list.bind(stores.setups), write: async () => {} },
    });
    expect([...stores.setups.rows.values()]).toEqual(rowsBefore);

    const repaired = await reconcileSetupRows(stores.states.states, stores, 100);

    expect(repaired).toBeGreaterThan(0);
    const state = stores.states.states.get('AAPL');
    expect(await stores.setups.list('D', 10)).toEqual(state?.setups.filter((row) => row.timeframe === 'D'));
    expect(await reconcileSetupRows(stores.states.states, stores, 100)).toBe(0);
  });
});
