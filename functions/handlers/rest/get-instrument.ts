import { z } from 'zod';
import { getInstrument } from '#domain/instruments';
import type { InstrumentCatalog } from '#ports/instrument-catalog';
import { instrumentCatalog } from '#runtime/ports';
import { pathSymbol, restHandler } from '#runtime/rest-handler';

/** GET /instruments/{symbol} (spec 4.2). */
export const createHandler = (deps: { instruments: () => InstrumentCatalog }) =>
  restHandler(z.object({}), (request) => getInstrument(pathSymbol(request), deps.instruments()));

export const handler = createHandler({ instruments: instrumentCatalog });
