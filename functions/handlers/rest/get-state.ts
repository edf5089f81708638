import * as z from 'zod/mini';
import type { Clock } from '#domain/calendar/clock';
import type { InstrumentCatalog, LedgerStore } from '#domain/market-data/ports';
import { getStateSnapshot, stateSnapshotSchema } from '#domain/strat/state-snapshot';
import { clock } from '#runtime/clock';
import { instrumentCatalog, ledgerStore } from '#runtime/ports/market-data';
import { pathSymbol, restHandler } from '#runtime/rest-handler';

/** The route's contract: query and response schemas (the OpenAPI document is built from these). */
export const contract = {
  summary: 'State snapshot of a symbol',
  query: z.object({}),
  response: stateSnapshotSchema,
  errors: ['unknown_symbol'],
} as const;

/** GET /states/{symbol} (docs/partner-guide.md#get-statessymbol). */
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
