import * as z from 'zod/mini';
import {
  ALERTS_LIMIT,
  ALERTS_MAX_EXAMINED,
  ALERTS_READ_BUDGET_MS,
  ALERTS_WINDOW_MINUTES,
} from '#domain/requests/limits';
import {
  anyCaseChoice,
  choiceParam,
  clampedIntParam,
  optionalIntParam,
  symbolListParam,
  wireForms,
  withWireForm,
} from '#domain/requests/query-params';
import { BREAK_THRESHOLDS, breakKey, isFuturesSymbol, type SimultaneousBreakEvent } from './breaks.ts';
import { CANDLE_TYPES, SHAPE_LABELS } from './candle-types.ts';
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
  id: z.int().check(z.gte(0)),
  symbol: z.string(),
  timeframe: z.enum(TIMEFRAMES),
  direction: z.enum(DIRECTIONS),
  shape: z.enum(SHAPE_LABELS),
  price: z.number(),
  triggered_at: z.iso.datetime(),
  cc: z.enum(CANDLE_TYPES),
});

/** A simultaneous break (docs/partner-guide.md#simultaneous-break). */
export const simultaneousBreakSchema = z.object({
  id: z.int().check(z.gte(0)),
  timeframe: z.enum(TIMEFRAMES),
  direction: z.enum(DIRECTIONS),
  threshold: z.literal(BREAK_THRESHOLDS),
  symbols: z.array(z.string()),
  triggered_at: z.iso.datetime(),
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

/** The `since_id` word asking for the feed's head (docs/partner-guide.md#starting-from-now). */
export const LATEST = 'latest';

/**
 * `since_id`: a whole number (optionalIntParam), or `latest` (any case): no items, and the feed's head as
 * `X-Next-Since-Id`, one cheap read whatever the feed's length.
 */
function sinceIdParam() {
  const number = optionalIntParam();
  const schema = z.pipe(
    z.optional(z.string()),
    z.transform((raw: string | undefined, payload): number | typeof LATEST | undefined => {
      if (raw?.trim().toLowerCase() === LATEST) return LATEST;
      const parsed = number.safeParse(raw);
      if (parsed.success) return parsed.data;
      for (const issue of parsed.error.issues) payload.issues.push({ ...issue, input: raw } as never);
      return z.NEVER;
    }),
  );
  const numberForm = wireForms.get(number);
  return withWireForm(schema, {
    schema: { anyOf: [numberForm?.schema ?? { type: 'integer' }, { type: 'string', enum: [LATEST] }] },
    accepts: {
      anyOf: [numberForm?.accepts ?? numberForm?.schema ?? { type: 'number' }, anyCaseChoice([LATEST])],
    },
    description:
      "Only events with a greater id. `latest` (any case) answers no items and the feed's newest id as " +
      '`X-Next-Since-Id` (0 for an empty feed): where a poll that wants only new events starts.',
  });
}

const common = {
  window_minutes: clampedIntParam(ALERTS_WINDOW_MINUTES),
  limit: clampedIntParam(ALERTS_LIMIT),
  since_id: sinceIdParam(),
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

/**
 * An alert as the feed stores it. Only a future's alert is indexed by symbol: the simultaneous breaks read the
 * futures' alerts back by symbol, and nothing reads any other symbol's that way (a `symbols` filter reads the
 * body), so the other alerts cost no index copy.
 */
export function inForceFeedEvent(event: InForceEvent): FeedEvent<InForceAlertBody> {
  return {
    onceKey: inForceKey(event),
    triggeredAtMs: event.triggeredAt,
    ...(isFuturesSymbol(event.symbol) ? { symbol: event.symbol } : {}),
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
  schema: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
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
  if (query.since_id === LATEST) return { body: { items: [] }, nextSinceId: await feed.head() };
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
  if (query.since_id === LATEST) return { body: { items: [] }, nextSinceId: await feed.head() };
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
