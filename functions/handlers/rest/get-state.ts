import * as z from 'zod/mini';
import type { InstrumentCatalog, LedgerStore } from '#domain/market-data/ports';
import { getStateSnapshot, stateSnapshotSchema } from '#domain/strat/state-snapshot';
import { nowMs } from '#runtime/clock';
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
  nowMs: () => number;
}) =>
  restHandler(contract, (request) =>
    getStateSnapshot(pathSymbol(request), {
      instruments: deps.instruments(),
      ledgers: deps.ledgers(),
      nowMs: deps.nowMs,
    }),
  );

export const handler = createHandler({ instruments: instrumentCatalog, ledgers: ledgerStore, nowMs });
