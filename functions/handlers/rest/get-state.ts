import * as z from 'zod';
import type { Clock } from '#domain/clock';
import { getStateSnapshot, stateSnapshotSchema } from '#domain/state-snapshot';
import type { InstrumentCatalog } from '#ports/instrument-catalog';
import type { LedgerStore } from '#ports/market-data';
import { clock, instrumentCatalog, ledgerStore } from '#runtime/ports';
import { pathSymbol, restHandler } from '#runtime/rest-handler';

/** The route's contract: query and response schemas (the OpenAPI document is built from these). */
export const contract = {
  summary: 'State snapshot of a symbol',
  query: z.object({}),
  response: stateSnapshotSchema,
};

/** GET /states/{symbol} (spec 4.6). */
export const createHandler = (deps: {
  instruments: () => InstrumentCatalog;
  ledgers: () => LedgerStore;
  clock: () => Clock;
}) =>
  restHandler(contract, (request) =>
    getStateSnapshot(pathSymbol(request), {
      instruments: deps.instruments(),
      ledgers: deps.ledgers(),
      now: deps.clock(),
    }),
  );

export const handler = createHandler({ instruments: instrumentCatalog, ledgers: ledgerStore, clock });
