import { listInstruments, listInstrumentsQuerySchema } from '#domain/instruments';
import type { InstrumentCatalog } from '#ports/instrument-catalog';
import { instrumentCatalog } from '#runtime/ports';
import { restHandler } from '#runtime/rest-handler';

/** GET /instruments (spec 4.1). */
export const createHandler = (deps: { instruments: () => InstrumentCatalog }) =>
  restHandler(listInstrumentsQuerySchema, ({ query }) => listInstruments(query, deps.instruments()));

export const handler = createHandler({ instruments: instrumentCatalog });
