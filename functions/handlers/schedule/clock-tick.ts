import type { Clock } from '#domain/calendar/clock';
import type { Instrument } from '#domain/market-data/instruments';
import { sessionTimesAt } from '#domain/market-data/periods';
import type { LedgerStore } from '#domain/market-data/ports';
import { clock } from '#runtime/clock';
import { instrumented } from '#runtime/lambda-handler';
import { logger } from '#runtime/logger';
import { recordMetric } from '#runtime/metrics';
import { ledgerStore, universe } from '#runtime/ports/market-data';
import { breakFeed, setupStore, stateStore } from '#runtime/ports/strat';
import { throughputTarget } from '#runtime/ports/throughput';
import { adjustRestThroughput } from '#use-cases/adjust-throughput';
import { reconcileSetupRows, type StateSyncPorts, syncStates } from '#use-cases/sync-states';

/**
 * The clock tick: every minute on AWS (EventBridge), every few seconds locally. It derives every
 * tracked symbol's state at "now" and writes the ones that changed, so a period that ended without a trade
 * rolls over (CC becomes C1) for `states` subscribers and `/setups/current` too, brings the setup rows back
 * in line with the stored states where they differ (docs/strat.md#stored-states-and-setup-rows), and sets
 * each key's REST limits for the minute (docs/partner-guide.md#limits-and-throttling).
 */
export const createHandler =
  (deps: {
    universe: () => Promise<Map<string, Instrument>>;
    ledgers: () => LedgerStore;
    stateSync: () => StateSyncPorts;
    clock: () => Clock;
    throughput: () => Parameters<typeof adjustRestThroughput>[1];
  }) =>
  async (): Promise<{ symbols: number; changed: number; rowsRepaired: number; throughput: string }> => {
    const instruments = [...(await deps.universe()).values()].filter((instrument) => instrument.active);
    const ledgers = await deps.ledgers().getMany(instruments.map(({ symbol }) => symbol));
    const sectors = new Map(instruments.map(({ symbol, sector }) => [symbol, sector]));
    const ports = deps.stateSync();
    const nowMs = deps.clock()().getTime();
    // The feed-silence alarm reads it: trades are expected while it is 1 (docs/operations.md#alarms).
    recordMetric('marketOpen', sessionTimesAt(nowMs) === undefined ? 0 : 1);
    const changed = await syncStates(
      [...ledgers.values()],
      nowMs,
      (symbol) => sectors.get(symbol) ?? '',
      ports,
    );
    const states = await ports.states.getMany([...ledgers.keys()]);
    const rowsRepaired = await reconcileSetupRows(states, ports, instruments.length);
    const throughput = await adjustRestThroughput(nowMs, deps.throughput());
    if (throughput.changed) logger.info('REST limits changed', { ...throughput });
    logger.debug('clock tick', { symbols: ledgers.size, changed: changed.length, rowsRepaired });
    return { symbols: ledgers.size, changed: changed.length, rowsRepaired, throughput: throughput.reason };
  };

export const handler = instrumented(
  createHandler({
    universe,
    ledgers: ledgerStore,
    stateSync: () => ({ states: stateStore(), setups: setupStore() }),
    clock,
    throughput: () => ({ breaks: breakFeed(), target: throughputTarget() }),
  }),
);
