import {
  type InForceAlertBody,
  inForceAlertListSchema,
  inForceQuerySchema,
  listInForceAlerts,
  NEXT_SINCE_ID_HEADER,
  nextSinceIdHeader,
} from '#domain/strat/alerts';
import type { EventFeed } from '#domain/strat/ports';
import { nowMs } from '#runtime/clock';
import { alertFeed } from '#runtime/ports/strat';
import { restHandler } from '#runtime/rest-handler';

/** The route's contract: query and response schemas (the OpenAPI document is built from these). */
export const contract = {
  summary: 'In-force alerts',
  query: inForceQuerySchema,
  response: inForceAlertListSchema,
  errors: ['invalid_parameter'],
  headers: { [NEXT_SINCE_ID_HEADER]: nextSinceIdHeader },
} as const;

/** GET /alerts/in-force (docs/partner-guide.md#get-alertsin-force). */
export const createHandler = (deps: { alerts: () => EventFeed<InForceAlertBody>; nowMs: () => number }) =>
  restHandler(contract, async ({ query, setHeader }) => {
    const listing = await listInForceAlerts(query, deps.alerts(), deps.nowMs());
    if (listing.nextSinceId !== undefined) setHeader(NEXT_SINCE_ID_HEADER, String(listing.nextSinceId));
    return listing.body;
  });

export const handler = createHandler({ alerts: alertFeed, nowMs });
