import { CLOCK_TICK } from '#contracts/routes';
import type { Instrument } from '#domain/market-data/instruments';
import { sessionTimesAt } from '#domain/market-data/periods';
import type { LedgerStore } from '#domain/market-data/ports';
import { derivedSinceLastPeriodEdge } from '#domain/strat/setups';
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

type QuarterHourly = (typeof CLOCK_TICK)['rollStates' | 'repairSetupRows'];

/** The span of `everyMinutes` a run at `ms` falls in, the spans starting `afterSeconds` into each. */
const spanOf = ({ everyMinutes, afterSeconds }: QuarterHourly, ms: number) =>
  Math.floor((ms - afterSeconds * 1000) / (everyMinutes * 60_000));

/** Runs a step at the first tick of each of its spans (and an instance's first), again after one that failed. */
function oncePerSpan(schedule: QuarterHourly) {
  let ranAtMs: number | undefined;
  return async <T>(nowMs: number, step: () => Promise<T>): Promise<T | undefined> => {
    if (ranAtMs !== undefined && spanOf(schedule, ranAtMs) === spanOf(schedule, nowMs)) return undefined;
    const result = await step();
    ranAtMs = nowMs;
    return result;
  };
}

/**
 * Step 1, a minute into each quarter-hour: derives the state at "now" of every tracked symbol whose stored
 * state may be out of date, and writes the ones that changed, so a period that ended without a trade rolls
 * over (CC becomes C1) for `states` subscribers and `/setups/current` too. A state derived since the last
 * quarter-hour is current (no period has ended since, and a commit that changed it wrote it again): its
 * ledger is not read. At a busy close the ingest has written most states by the time the roll runs.
 *
 * Once a quarter-hour is enough: a state changes without a trade only when a period ends (its CC becomes C1:
 * nextStateChangeMs in functions/domain/strat/setups.ts), and every period of every timeframe ends on a
 * quarter-hour (PERIOD_EDGE_MS there). A minute into it, not at once: the symbols that trade have had their
 * first commit of the new quarter-hour by then, which writes their states (syncStates compares it with the
 * stored state), so the tick writes only the quiet ones' (at once, it would write every symbol's, each
 * replaced by the ingest seconds later, and push both to `states` subscribers).
 */
async function rollStates(
  instruments: readonly Instrument[],
  nowMs: number,
  ledgerStore: LedgerStore,
  ports: StateSyncPorts,
) {
  const symbols = instruments.map(({ symbol }) => symbol);
  const stored = await ports.states.getMany(symbols);
  const outOfDate = symbols.filter((symbol) => {
    const state = stored.get(symbol);
    return state === undefined || !derivedSinceLastPeriodEdge(state.updatedAtMs, nowMs);
  });
  const ledgers = outOfDate.length === 0 ? new Map() : await ledgerStore.getMany(outOfDate);
  // syncStates reads the states of these again, after their ledgers, on purpose: its comparison and the setup
  // rows it writes start from the newest stored state (one the ingest wrote meanwhile), not the copy above.
  const sectors = new Map(instruments.map(({ symbol, sector }) => [symbol, sector]));
  const changed = await syncStates(
    [...ledgers.values()],
    nowMs,
    (symbol) => sectors.get(symbol) ?? '',
    ports,
  );
  return { derived: ledgers.size, changed: changed.length };
}

/**
 * Step 2, half-way through each quarter-hour: brings the setup rows back in line with the stored states where
 * they differ (docs/strat.md#stored-states-and-setup-rows).
 */
async function repairSetupRows(instruments: readonly Instrument[], ports: StateSyncPorts) {
  const states = await ports.states.getMany(instruments.map(({ symbol }) => symbol));
  return reconcileSetupRows(states, ports, instruments.length);
}

/** Step 3: sets each key's REST limits for the minute (docs/partner-guide.md#limits-and-throttling). */
async function setRestLimits(nowMs: number, ports: Parameters<typeof adjustRestThroughput>[1]) {
  const throughput = await adjustRestThroughput(nowMs, ports);
  if (throughput.changed) logger.info('REST limits changed', { ...throughput });
  return throughput.reason;
}

/**
 * The clock tick: every minute on AWS (EventBridge), every few seconds locally. Each tick records whether
 * the market is open, which the feed-silence alarm reads (docs/operations.md#alarms), and sets the REST
 * limits. The first tick a minute or more into each quarter-hour (and an instance's first) also rolls the
 * states over; the first tick half-way through it (and an instance's first) repairs the setup rows, away
 * from the writes that follow a close. A tick whose roll or repair failed leaves it to the next.
 */
export const createHandler = (deps: ClockTickDeps) => {
  const rollDue = oncePerSpan(CLOCK_TICK.rollStates);
  const repairDue = oncePerSpan(CLOCK_TICK.repairSetupRows);
  return async (): Promise<{
    /** States derived from their ledgers by this tick's roll: those not derived since the last quarter-hour. */
    derived: number;
    changed: number;
    rowsRepaired: number;
    throughput: string;
  }> => {
    const nowMs = deps.nowMs();
    recordMetric('marketOpen', sessionTimesAt(nowMs) === undefined ? 0 : 1);
    const activeInstruments = async () =>
      [...(await deps.universe()).values()].filter((instrument) => instrument.active);
    const rolled = await rollDue(nowMs, async () =>
      rollStates(await activeInstruments(), nowMs, deps.ledgers(), deps.stateSync()),
    );
    const rowsRepaired = await repairDue(nowMs, async () =>
      repairSetupRows(await activeInstruments(), deps.stateSync()),
    );
    const result = { derived: 0, changed: 0, ...rolled, rowsRepaired: rowsRepaired ?? 0 };
    const throughput = await setRestLimits(nowMs, deps.throughput());
    logger.debug('clock tick', result);
    return { ...result, throughput };
  };
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
