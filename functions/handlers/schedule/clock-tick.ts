import type { Instrument } from '#domain/market-data/instruments';
import { sessionTimesAt } from '#domain/market-data/periods';
import type { LedgerStore } from '#domain/market-data/ports';
import { nowMs } from '#runtime/clock';
import { instrumented } from '#runtime/lambda-handler';
import { logger } from '#runtime/logger';
import { recordMetric } from '#runtime/metrics';
import { ledgerStore, universe } from '#runtime/ports/market-data';
import type { ServicePorts } from '#runtime/ports/service-ports';
import { breakFeed, setupStore, stateStore } from '#runtime/ports/strat';
import { throughputTarget } from '#runtime/ports/throughput';
import { adjustRestThroughput } from '#use-cases/adjust-throughput';
import { reconcileSetupRows, type StateSyncPorts, syncStates } from '#use-cases/sync-states';

type ClockTickDeps = {
  universe: () => Promise<Map<string, Instrument>>;
  ledgers: () => LedgerStore;
  stateSync: () => StateSyncPorts;
  nowMs: () => number;
  throughput: () => Parameters<typeof adjustRestThroughput>[1];
};

/**
 * Step 1: derives every tracked symbol's state at "now" and writes the ones that changed, so a period that
 * ended without a trade rolls over (CC becomes C1) for `states` subscribers and `/setups/current` too.
 * Records whether the market is open, which the feed-silence alarm reads (docs/operations.md#alarms).
 */
async function rollStates(
  instruments: readonly Instrument[],
  nowMs: number,
  ledgerStore: LedgerStore,
  ports: StateSyncPorts,
) {
  const ledgers = await ledgerStore.getMany(instruments.map(({ symbol }) => symbol));
  const sectors = new Map(instruments.map(({ symbol, sector }) => [symbol, sector]));
  recordMetric('marketOpen', sessionTimesAt(nowMs) === undefined ? 0 : 1);
  const changed = await syncStates(
    [...ledgers.values()],
    nowMs,
    (symbol) => sectors.get(symbol) ?? '',
    ports,
  );
  return { symbols: [...ledgers.keys()], changed: changed.length };
}

/** Step 2: brings the setup rows back in line with the stored states where they differ (docs/strat.md#stored-states-and-setup-rows). */
async function repairSetupRows(symbols: readonly string[], tracked: number, ports: StateSyncPorts) {
  const states = await ports.states.getMany([...symbols]);
  return reconcileSetupRows(states, ports, tracked);
}

/** Step 3: sets each key's REST limits for the minute (docs/partner-guide.md#limits-and-throttling). */
async function setRestLimits(nowMs: number, ports: Parameters<typeof adjustRestThroughput>[1]) {
  const throughput = await adjustRestThroughput(nowMs, ports);
  if (throughput.changed) logger.info('REST limits changed', { ...throughput });
  return throughput.reason;
}

/**
 * The clock tick: every minute on AWS (EventBridge), every few seconds locally, three steps in turn: roll
 * the states over, repair the setup rows, set the REST limits.
 */
export const createHandler =
  (deps: ClockTickDeps) =>
  async (): Promise<{ symbols: number; changed: number; rowsRepaired: number; throughput: string }> => {
    const instruments = [...(await deps.universe()).values()].filter((instrument) => instrument.active);
    const ports = deps.stateSync();
    const nowMs = deps.nowMs();
    const { symbols, changed } = await rollStates(instruments, nowMs, deps.ledgers(), ports);
    const rowsRepaired = await repairSetupRows(symbols, instruments.length, ports);
    const throughput = await setRestLimits(nowMs, deps.throughput());
    logger.debug('clock tick', { symbols: symbols.length, changed, rowsRepaired });
    return { symbols: symbols.length, changed, rowsRepaired, throughput };
  };

/** The clock tick on the service's ports (functions/runtime/ports/service-ports.ts): on AWS, or a local stack's. */
export const handlerOn = (
  p: Pick<
    ServicePorts,
    'universe' | 'ledgerStore' | 'stateStore' | 'setupStore' | 'breakFeed' | 'throughputTarget' | 'nowMs'
  >,
) =>
  instrumented(
    createHandler({
      universe: p.universe,
      ledgers: p.ledgerStore,
      stateSync: () => ({ states: p.stateStore(), setups: p.setupStore() }),
      nowMs: p.nowMs,
      throughput: () => ({ breaks: p.breakFeed(), target: p.throughputTarget() }),
    }),
  );

export const handler = handlerOn({
  universe,
  ledgerStore,
  stateStore,
  setupStore,
  breakFeed,
  throughputTarget,
  nowMs,
});
