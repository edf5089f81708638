import * as z from 'zod/mini';
import { getInstrument } from '#domain/market-data/instrument-queries';
import { instrumentSchema } from '#domain/market-data/instruments';
import type { InstrumentCatalog } from '#domain/market-data/ports';
import { instrumentCatalog } from '#runtime/ports/market-data';
import { pathSymbol, restHandler } from '#runtime/rest-handler';

/** The route's contract: query and response schemas (the OpenAPI document is built from these). */
export const contract = {
  summary: 'One instrument',
  query: z.object({}),
  response: instrumentSchema,
  errors: ['unknown_symbol'],
} as const;

/** GET /instruments/{symbol} (docs/partner-guide.md#get-instrumentssymbol). */
export const createHandler = (deps: { instruments: () => InstrumentCatalog }) =>
  restHandler(contract, (request) => getInstrument(pathSymbol(request), deps.instruments()));

export const handler = createHandler({ instruments: instrumentCatalog });
