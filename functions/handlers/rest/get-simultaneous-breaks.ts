import { breaksQuerySchema, listSimultaneousBreaks, type SimultaneousBreakBody } from '#domain/alerts';
import type { Clock } from '#domain/clock';
import type { EventFeed } from '#ports/event-feed';
import { breakFeed, clock } from '#runtime/ports';
import { restHandler } from '#runtime/rest-handler';

/** GET /alerts/simultaneous-breaks (spec 4.9). */
export const createHandler = (deps: { breaks: () => EventFeed<SimultaneousBreakBody>; clock: () => Clock }) =>
  restHandler(breaksQuerySchema, ({ query }) =>
    listSimultaneousBreaks(query, deps.breaks(), deps.clock()().getTime()),
  );

export const handler = createHandler({ breaks: breakFeed, clock });
