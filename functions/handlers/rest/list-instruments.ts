import { instrumentListSchema, listInstruments, listInstrumentsQuerySchema } from '#domain/instruments';
import type { InstrumentCatalog } from '#ports/instrument-catalog';
import { instrumentCatalog } from '#runtime/ports';
import { restHandler } from '#runtime/rest-handler';

/** The route's contract: query and response schemas (the OpenAPI document is built from these). */
export const contract = {
  summary: 'List instruments',
  query: listInstrumentsQuerySchema,
  response: instrumentListSchema,
};

/** GET /instruments (spec 4.1). */
export const createHandler = (deps: { instruments: () => InstrumentCatalog }) =>
  restHandler(contract, ({ query }) => listInstruments(query, deps.instruments()));

export const handler = createHandler({ instruments: instrumentCatalog });
