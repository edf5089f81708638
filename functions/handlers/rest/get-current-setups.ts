import { currentSetupsQuerySchema, listCurrentSetups } from '#domain/setups-query';
import type { SetupStore, StateStore } from '#ports/strat-state';
import { setupStore, stateStore } from '#runtime/ports';
import { restHandler } from '#runtime/rest-handler';

/** GET /setups/current (spec 4.7). */
export const createHandler = (deps: { states: () => StateStore; setups: () => SetupStore }) =>
  restHandler(currentSetupsQuerySchema, ({ query }) =>
    listCurrentSetups(query, { states: deps.states(), setups: deps.setups() }),
  );

export const handler = createHandler({ states: stateStore, setups: setupStore });
