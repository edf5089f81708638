import { listInstruments } from '#domain/market-data/instrument-queries';
import { instrumentListSchema, listInstrumentsQuerySchema } from '#domain/market-data/instruments';
import type { InstrumentCatalog } from '#domain/market-data/ports';
import { nextPageLink, nextPageLinkHeader } from '#domain/requests/page-cursor';
import { instrumentCatalog } from '#runtime/ports/market-data';
import { restHandler } from '#runtime/rest-handler';

/** The route's contract: query and response schemas (the OpenAPI document is built from these). */
export const contract = {
  summary: 'List instruments',
  query: listInstrumentsQuerySchema,
  response: instrumentListSchema,
  errors: ['invalid_parameter'],
  headers: { Link: nextPageLinkHeader },
} as const;

/** GET /instruments (docs/partner-guide.md#get-instruments). */
export const createHandler = (deps: { instruments: () => InstrumentCatalog }) =>
  restHandler(contract, async ({ query, setHeader }) => {
    const page = await listInstruments(query, deps.instruments());
    if (page.next) setHeader('Link', nextPageLink(query, page.next));
    return page.body;
  });

export const handler = createHandler({ instruments: instrumentCatalog });
