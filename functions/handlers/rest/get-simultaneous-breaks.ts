import {
  breaksQuerySchema,
  listSimultaneousBreaks,
  NEXT_SINCE_ID_HEADER,
  nextSinceIdHeader,
  type SimultaneousBreakBody,
  simultaneousBreakListSchema,
} from '#domain/strat/alerts';
import type { EventFeed } from '#domain/strat/ports';
import { nowMs } from '#runtime/clock';
import { breakFeed } from '#runtime/ports/strat';
import { restHandler } from '#runtime/rest-handler';

/** The route's contract: query and response schemas (the OpenAPI document is built from these). */
export const contract = {
  summary: 'Simultaneous breaks of the index futures',
  query: breaksQuerySchema,
  response: simultaneousBreakListSchema,
  errors: ['invalid_parameter'],
  headers: { [NEXT_SINCE_ID_HEADER]: nextSinceIdHeader },
} as const;

/** GET /alerts/simultaneous-breaks (docs/partner-guide.md#get-alertssimultaneous-breaks). */
export const createHandler = (deps: {
  breaks: () => EventFeed<SimultaneousBreakBody>;
  nowMs: () => number;
}) =>
  restHandler(contract, async ({ query, setHeader }) => {
    const listing = await listSimultaneousBreaks(query, deps.breaks(), deps.nowMs());
    if (listing.nextSinceId !== undefined) setHeader(NEXT_SINCE_ID_HEADER, String(listing.nextSinceId));
    return listing.body;
  });

export const handler = createHandler({ breaks: breakFeed, nowMs });
