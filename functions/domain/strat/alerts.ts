import * as z from 'zod/mini';
import {
  ALERTS_LIMIT,
  ALERTS_MAX_EXAMINED,
  ALERTS_READ_BUDGET_MS,
  ALERTS_WINDOW_MINUTES,
} from '#domain/requests/limits';
import {
  choiceParam,
  clampedIntParam,
  optionalIntParam,
  symbolListParam,
} from '#domain/requests/query-params';
import { breakKey, type SimultaneousBreakEvent } from './breaks.ts';
import { CANDLE_TYPES } from './candle-types.ts';
import { DIRECTIONS } from './directions.ts';
import { type InForceEvent, inForceKey } from './in-force.ts';
import type { EventFeed, FeedEvent, FeedPage, StoredEvent } from './ports.ts';
import { TIMEFRAMES } from './timeframes.ts';

/** Feed names: one partition each in their tables. */
export const IN_FORCE_FEED = 'in-force';
export const BREAKS_FEED = 'simultaneous-breaks';

const MS_PER_MINUTE = 60_000;

/** An in-force alert (docs/partner-guide.md#in-force-alert). */
export const inForceAlertSchema = z.object({
  id: z.int(),
  symbol: z.string(),
  timeframe: z.enum(TIMEFRAMES),
  direction: z.enum(DIRECTIONS),
  shape: z.string(),
  price: z.number(),
  triggered_at: z.string(),
  cc: z.string(),
});

/** A simultaneous break (docs/partner-guide.md#simultaneous-break). */
export const simultaneousBreakSchema = z.object({
  id: z.int(),
  timeframe: z.enum(TIMEFRAMES),
  direction: z.enum(DIRECTIONS),
  threshold: z.int(),
  symbols: z.array(z.string()),
  triggered_at: z.string(),
});

/**
 * The responses of GET /alerts/in-force (docs/partner-guide.md#get-alertsin-force) and
 * GET /alerts/simultaneous-breaks (docs/partner-guide.md#get-alertssimultaneous-breaks).
 */
export const inForceAlertListSchema = z.object({ items: z.array(inForceAlertSchema) });
export const simultaneousBreakListSchema = z.object({ items: z.array(simultaneousBreakSchema) });

export type InForceAlert = z.infer<typeof inForceAlertSchema>;
export type SimultaneousBreak = z.infer<typeof simultaneousBreakSchema>;
export type InForceAlertBody = Omit<InForceAlert, 'id'>;
export type SimultaneousBreakBody = Omit<SimultaneousBreak, 'id'>;

const common = {
  window_minutes: clampedIntParam(ALERTS_WINDOW_MINUTES),
  limit: clampedIntParam(ALERTS_LIMIT),
  since_id: optionalIntParam(),
  timeframe: choiceParam(['all', ...TIMEFRAMES], 'all'),
  direction: choiceParam(['all', ...DIRECTIONS], 'all'),
};

/**
 * The query of GET /alerts/in-force (docs/partner-guide.md#get-alertsin-force; limits:
 * docs/partner-guide.md#limits-and-throttling).
 */
export const inForceQuerySchema = z.object({
  ...common,
  symbols: symbolListParam(),
  cc: choiceParam(['all', ...CANDLE_TYPES], 'all'),
});

/**
 * The query of GET /alerts/simultaneous-breaks (docs/partner-guide.md#get-alertssimultaneous-breaks; limits:
 * docs/partner-guide.md#limits-and-throttling).
 */
export const breaksQuerySchema = z.object({
  ...common,
  threshold: choiceParam(['all', '2', '3', '4'], 'all'),
});

export type InForceQuery = z.output<typeof inForceQuerySchema>;
export type BreaksQuery = z.output<typeof breaksQuerySchema>;

const iso = (ms: number) => new Date(ms).toISOString();
const matches = (wanted: string, value: string) => wanted === 'all' || wanted === value;

/** DynamoDB's limit on the values of one `IN`: a longer list is left to `accept` alone. */
const MAX_MATCH_VALUES = 100;

/** The filters storage can apply as it reads (FeedReadQuery.bodyMatch): the fields not `all`. */
function bodyMatchOf(
  fields: Readonly<Record<string, string | readonly string[] | undefined>>,
  numeric: readonly string[] = [],
): Record<string, (string | number)[]> {
  const match: Record<string, (string | number)[]> = {};
  for (const [field, wanted] of Object.entries(fields)) {
    if (wanted === undefined || wanted === 'all') continue;
    const values = typeof wanted === 'string' ? [wanted] : [...wanted];
    if (values.length > MAX_MATCH_VALUES) continue;
    match[field] = numeric.includes(field) ? values.map(Number) : values;
  }
  return match;
}

export function inForceFeedEvent(event: InForceEvent): FeedEvent<InForceAlertBody> {
  return {
    onceKey: inForceKey(event),
    triggeredAtMs: event.triggeredAt,
    symbol: event.symbol,
    body: {
      symbol: event.symbol,
      timeframe: event.timeframe,
      direction: event.direction,
      shape: event.shape,
      price: event.price,
      triggered_at: iso(event.triggeredAt),
      cc: event.cc,
    },
  };
}

export function breakFeedEvent(event: SimultaneousBreakEvent): FeedEvent<SimultaneousBreakBody> {
  return {
    onceKey: breakKey(event),
    triggeredAtMs: event.triggeredAt,
    body: {
      timeframe: event.timeframe,
      direction: event.direction,
      threshold: event.threshold,
      symbols: [...event.symbols],
      triggered_at: iso(event.triggeredAt),
    },
  };
}

const withId = <Body>({ id, body }: StoredEvent<Body>) => ({ id, ...body });

/** The response header naming the id a `since_id` poll can go on from. */
export const NEXT_SINCE_ID_HEADER = 'X-Next-Since-Id';

/** The header as the OpenAPI document describes it (docs/partner-guide.md#polling-past-a-narrow-filter). */
export const nextSinceIdHeader = {
  description:
    `The id of the last event the request examined (at most ${ALERTS_MAX_EXAMINED} are examined per ` +
    `request, for at most about ${ALERTS_READ_BUDGET_MS / 1000} seconds); absent when it examined none. ` +
    'Pass the larger of it and the highest `id` received as the next `since_id`.',
  schema: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
} as const;

/**
 * A listing: the response body, and the id a `since_id` poll can go on from (the `X-Next-Since-Id` header,
 * docs/partner-guide.md#polling-past-a-narrow-filter): the last event the request examined.
 */
export interface FeedListing<Item> {
  readonly body: { items: Item[] };
  readonly nextSinceId?: number;
}

function listingOf<Body>(page: FeedPage<Body>): FeedListing<{ id: number } & Body> {
  return {
    body: { items: page.events.map(withId) },
    ...(page.lastExaminedId === undefined ? {} : { nextSinceId: page.lastExaminedId }),
  };
}

/**
 * GET /alerts/in-force (docs/partner-guide.md#get-alertsin-force): ids ascending, at most `limit`, within the
 * window, after `since_id`, every filter.
 */
export async function listInForceAlerts(
  query: InForceQuery,
  feed: EventFeed<InForceAlertBody>,
  nowMs: number,
): Promise<FeedListing<InForceAlert>> {
  const symbols = query.symbols ? new Set(query.symbols) : undefined;
  const page = await feed.read({
    sinceId: query.since_id,
    fromMs: nowMs - query.window_minutes * MS_PER_MINUTE,
    limit: query.limit,
    maxExamined: ALERTS_MAX_EXAMINED,
    budgetMs: ALERTS_READ_BUDGET_MS,
    bodyMatch: bodyMatchOf({
      symbol: query.symbols,
      timeframe: query.timeframe,
      direction: query.direction,
      cc: query.cc,
    }),
    accept: ({ body }) =>
      (symbols === undefined || symbols.has(body.symbol)) &&
      matches(query.timeframe, body.timeframe) &&
      matches(query.direction, body.direction) &&
      matches(query.cc, body.cc),
  });
  return listingOf(page);
}

/**
 * GET /alerts/simultaneous-breaks (docs/partner-guide.md#get-alertssimultaneous-breaks): ids ascending, at
 * most `limit`, within the window, after `since_id`, every filter.
 */
export async function listSimultaneousBreaks(
  query: BreaksQuery,
  feed: EventFeed<SimultaneousBreakBody>,
  nowMs: number,
): Promise<FeedListing<SimultaneousBreak>> {
  const page = await feed.read({
    sinceId: query.since_id,
    fromMs: nowMs - query.window_minutes * MS_PER_MINUTE,
    limit: query.limit,
    maxExamined: ALERTS_MAX_EXAMINED,
    budgetMs: ALERTS_READ_BUDGET_MS,
    bodyMatch: bodyMatchOf(
      { timeframe: query.timeframe, direction: query.direction, threshold: query.threshold },
      ['threshold'],
    ),
    accept: ({ body }) =>
      matches(query.timeframe, body.timeframe) &&
      matches(query.direction, body.direction) &&
      matches(query.threshold, String(body.threshold)),
  });
  return listingOf(page);
}
