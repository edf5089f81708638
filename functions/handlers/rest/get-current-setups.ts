import { nextPageLink, nextPageLinkHeader } from '#domain/requests/page-cursor';
import {
  currentSetupsQuerySchema,
  currentSetupsSchema,
  listCurrentSetups,
} from '#domain/strat/current-setups';
import type { SetupStore, StateStore } from '#domain/strat/ports';
import { setupStore, stateStore } from '#runtime/ports/strat';
import { restHandler } from '#runtime/rest-handler';

/** The route's contract: query and response schemas (the OpenAPI document is built from these). */
export const contract = {
  summary: 'Current setup rows',
  query: currentSetupsQuerySchema,
  response: currentSetupsSchema,
  errors: ['invalid_parameter'],
  headers: { Link: nextPageLinkHeader },
} as const;

/** GET /setups/current (docs/partner-guide.md#get-setupscurrent). */
export const createHandler = (deps: { states: () => StateStore; setups: () => SetupStore }) =>
  restHandler(contract, async ({ query, setHeader }) => {
    const page = await listCurrentSetups(query, { states: deps.states(), setups: deps.setups() });
    if (page.next) setHeader('Link', nextPageLink(query, page.next));
    return page.body;
  });

export const handler = createHandler({ states: stateStore, setups: setupStore });
