import { type InForceAlertBody, inForceQuerySchema, listInForceAlerts } from '#domain/alerts';
import type { Clock } from '#domain/clock';
import type { EventFeed } from '#ports/event-feed';
import { alertFeed, clock } from '#runtime/ports';
import { restHandler } from '#runtime/rest-handler';

/** GET /alerts/in-force (spec 4.8). */
export const createHandler = (deps: { alerts: () => EventFeed<InForceAlertBody>; clock: () => Clock }) =>
  restHandler(inForceQuerySchema, ({ query }) =>
    listInForceAlerts(query, deps.alerts(), deps.clock()().getTime()),
  );

export const handler = createHandler({ alerts: alertFeed, clock });
