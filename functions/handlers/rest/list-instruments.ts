import { listInstruments } from '#domain/market-data/instrument-queries';
import { instrumentListSchema, listInstrumentsQuerySchema } from '#domain/market-data/instruments';
import type { InstrumentCatalog } from '#domain/market-data/ports';
import { instrumentCatalog } from '#runtime/ports/market-data';
import { restHandler } from '#runtime/rest-handler';

/** The route's contract: query and response schemas (the OpenAPI document is built from these). */
export const contract = {
  summary: 'List instruments',
  query: listInstrumentsQuerySchema,
  response: instrumentListSchema,
  errors: ['invalid_parameter'],
} as const;

/** GET /instruments (docs/partner-guide.md#get-instruments). */
export const createHandler = (deps: { instruments: () => InstrumentCatalog }) =>
  restHandler(contract, ({ query }) => listInstruments(query, deps.instruments()));

export const handler = createHandler({ instruments: instrumentCatalog });
