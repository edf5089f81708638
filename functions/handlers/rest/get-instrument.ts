import * as z from 'zod';
import { getInstrument, instrumentSchema } from '#domain/instruments';
import type { InstrumentCatalog } from '#ports/instrument-catalog';
import { instrumentCatalog } from '#runtime/ports';
import { pathSymbol, restHandler } from '#runtime/rest-handler';

/** The route's contract: query and response schemas (the OpenAPI document is built from these). */
export const contract = {
  summary: 'One instrument',
  query: z.object({}),
  response: instrumentSchema,
};

/** GET /instruments/{symbol} (spec 4.2). */
export const createHandler = (deps: { instruments: () => InstrumentCatalog }) =>
  restHandler(contract, (request) => getInstrument(pathSymbol(request), deps.instruments()));

export const handler = createHandler({ instruments: instrumentCatalog });
