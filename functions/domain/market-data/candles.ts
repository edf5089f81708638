import * as z from 'zod/mini';
import { sessionAt } from '#domain/calendar/sessions';
import { InvalidParameterError, UnknownIntervalError, UnknownSymbolError } from '#domain/requests/errors';
import { CANDLES_LIMIT } from '#domain/requests/limits';
import {
  anyCaseChoice,
  clampedIntParam,
  queryParam,
  textParam,
  withWireForm,
} from '#domain/requests/query-params';
import { type Bar, barOf } from './bars.ts';
import { INTERVALS, type Interval, isInterval, isIntraday } from './intervals.ts';
import { calendarPeriodOfDay, type Period, periodAt } from './periods.ts';
import type { BarStore, InstrumentCatalog, LedgerStore } from './ports.ts';
import { isWellFormedSymbol } from './symbols.ts';

export const DEFAULT_INTERVAL: Interval = '1d';

const SECONDS_PER_DAY = 86_400;
const PLAIN_DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** A bar (docs/partner-guide.md#bar). */
export const barSchema = z.object({
  time: z.number(),
  open: z.number(),
  high: z.number(),
  low: z.number(),
  close: z.number(),
  volume: z.number(),
});

/** The response of GET /candles/{symbol} (docs/partner-guide.md#candles). */
export const candlesSchema = z.object({
  symbol: z.string(),
  interval: z.enum(INTERVALS),
  bars: z.array(barSchema),
  partial_bar_included: z.boolean(),
});

export type Candles = z.infer<typeof candlesSchema>;

/**
 * An ISO 8601 datetime or plain date as Unix ms; a plain date (and a datetime without an offset) is UTC.
 * The calendar date must exist (2024-02-30 is refused).
 */
export function parseInstant(raw: string): number | undefined {
  const plain = PLAIN_DATE.test(raw);
  const match = plain ? undefined : DATE_TIME.exec(raw);
  if (!plain && !match) return undefined;
  const date = plain ? raw : (match?.[1] ?? '');
  const normalized = plain ? `${raw}T00:00:00Z` : match?.[5] ? raw : `${raw}Z`;
  const ms = Date.parse(normalized);
  if (!Number.isFinite(ms)) return undefined;
  // Date.parse rolls 2024-02-30 over to March: the calendar date must survive the round trip.
  const dayMs = Date.parse(`${date}T00:00:00Z`);
  return Number.isFinite(dayMs) && new Date(dayMs).toISOString().slice(0, 10) === date ? ms : undefined;
}

function instantParam() {
  const schema = queryParam((value, refuse) => {
    if (value === undefined) return undefined;
    return parseInstant(value) ?? refuse('must be an ISO 8601 date or datetime');
  });
  return withWireForm(schema, {
    schema: { type: 'string' },
    description:
      'ISO 8601 datetime or plain date (YYYY-MM-DD); a plain date, or a datetime without an offset, is UTC.',
  });
}

/**
 * The query of GET /candles/{symbol} (docs/partner-guide.md#candles); `interval` is checked separately (an
 * unknown one is a bodiless 404, not a 400).
 */
export const candlesQuerySchema = z.object({
  interval: withWireForm(textParam(), {
    schema: { type: 'string', enum: [...INTERVALS], default: DEFAULT_INTERVAL },
    accepts: { ...anyCaseChoice(INTERVALS), default: DEFAULT_INTERVAL },
    description:
      `One of ${INTERVALS.join(', ')}, in any case (\`1D\` reads as \`1d\`). An interval not listed is ` +
      'answered 404 with an empty body.',
  }),
  start: instantParam(),
  end: instantParam(),
  limit: clampedIntParam(CANDLES_LIMIT),
});

export type CandlesQuery = z.output<typeof candlesQuerySchema>;

/** Intervals are matched case-insensitively and answered in their canonical form (`1D` → `1d`). */
export function normalizeInterval(raw: string | undefined): Interval {
  const interval = (raw ?? DEFAULT_INTERVAL).toLowerCase();
  if (!isInterval(interval)) throw new UnknownIntervalError(raw ?? '');
  return interval;
}

/** The period a bar stands for, from its bar time (docs/candles.md#intervals). */
export function periodOfBar(interval: Interval, time: number): Period | undefined {
  if (isIntraday(interval)) return periodAt(interval, time * 1000);
  return calendarPeriodOfDay(interval, Math.floor(time / SECONDS_PER_DAY));
}

/**
 * `partial_bar_included` (docs/partner-guide.md#candles): the last bar's period still runs and the market is
 * open. Always false for `1m` (docs/candles.md#partial-bars: a minute bar is served as complete).
 */
export function isPartial(interval: Interval, lastBar: Bar | undefined, nowMs: number): boolean {
  if (interval === '1m' || lastBar === undefined || sessionAt(new Date(nowMs)) === undefined) return false;
  const period = periodOfBar(interval, lastBar.time);
  return period !== undefined && period.startMs <= nowMs && nowMs < period.endMs;
}

/** The first and last bar time a request can hold: bars are never before 1970 (Unix seconds from 0). */
const BAR_TIMES = { first: 0, last: Number.MAX_SAFE_INTEGER } as const;

/**
 * The bar times (whole Unix seconds, both included) between `startMs` and `endMs`, either absent meaning no
 * bound, within the times a bar can have; `undefined` when there are none (an end before 1970, or start and
 * end within one second, not on it), so storage is never asked for a range that ends before it starts.
 */
export function barTimeRange(
  startMs: number | undefined,
  endMs: number | undefined,
): { readonly fromTime: number; readonly toTime: number } | undefined {
  const fromTime = Math.max(
    BAR_TIMES.first,
    startMs === undefined ? BAR_TIMES.first : Math.ceil(startMs / 1000),
  );
  const toTime = Math.min(BAR_TIMES.last, endMs === undefined ? BAR_TIMES.last : Math.floor(endMs / 1000));
  return fromTime > toTime ? undefined : { fromTime, toTime };
}

export interface CandlesPorts {
  readonly instruments: InstrumentCatalog;
  readonly bars: BarStore;
  readonly ledgers: LedgerStore;
  readonly nowMs: () => number;
}

/**
 * GET /candles/{symbol} (docs/partner-guide.md#candles). Stored bars come from one Query on the series
 * (newest first, `limit` items); the ledger's latest bar of the interval (complete or forming) joins them
 * when it falls in the range.
 */
export async function getCandles(symbol: string, query: CandlesQuery, ports: CandlesPorts): Promise<Candles> {
  const interval = normalizeInterval(query.interval);
  if (!isWellFormedSymbol(symbol)) throw new UnknownSymbolError(symbol);
  if (query.start !== undefined && query.end !== undefined && query.start > query.end) {
    throw new InvalidParameterError('start', 'must not be after end');
  }
  const range = barTimeRange(query.start, query.end);
  const [instrument, stored, ledger] = await Promise.all([
    ports.instruments.get(symbol),
    range ? ports.bars.query({ symbol, interval }, { ...range, limit: query.limit }) : [],
    ports.ledgers.get(symbol),
  ]);
  if (!instrument) throw new UnknownSymbolError(symbol);

  const bars = stored.map(barOf);
  const latest = ledger?.ledger.forming[interval];
  const inRange = (time: number) => range !== undefined && time >= range.fromTime && time <= range.toTime;
  if (latest && inRange(latest.time) && (bars.at(-1)?.time ?? -Infinity) < latest.time)
    bars.push(barOf(latest));
  const kept = bars.slice(-query.limit);
  return {
    symbol,
    interval,
    bars: kept,
    partial_bar_included: isPartial(interval, kept.at(-1), ports.nowMs()),
  };
}
