/**
 * Candle periods (docs/candles.md#intraday-periods, docs/candles.md#daily-and-longer-periods): which period
 * of an interval an instant belongs to, and the bar time of that period.
 *
 * - Intraday (`1m` .. `4h`): periods start at the session open and step by the interval; the session's last
 *   period is cut at the close (`60m`: 09:30, 10:30 .. 15:30 lasting 30 minutes; `4h`: 09:30-13:30 and
 *   13:30-16:00, or one period 09:30-13:00 on an early-close day). Bar time = the period's start instant.
 * - `1d` is one session, `1w` the sessions of one Monday-to-Friday week, `1mo`, `1q` (January, April, July,
 *   October) and `1y` the sessions of a calendar month, quarter, year. Bar time = 00:00 UTC of the date of
 *   the period's first session (January 2024 -> 2024-01-02T00:00:00Z: the 1st was a holiday).
 * - Every period runs from the open of its first session to the close of its last: [startMs, endMs).
 *
 * Every instant is Unix milliseconds; bar times are Unix seconds (docs/partner-guide.md#bar). An instant or
 * day outside the calendar's range (the UTC days 1990-01-01 .. 2099-12-31) is a RangeError, like the
 * calendar's own.
 *
 * Speed: sessions are memoized per day (as numbers, no Date on the hot path) and session-made periods per
 * interval and day; the last session hit is remembered, so in-order lookups cost a few comparisons.
 * Returned periods of `1d` and longer are shared and frozen.
 */
import { CALENDAR_RANGE, type Session, sessionOn } from '#domain/calendar/sessions';
import {
  civilDateOf,
  epochDayOf,
  epochDayOfIsoDate,
  isoDateOf,
  MS_PER_DAY,
  weekdayOf,
} from '#domain/calendar/time-zone';
import {
  INTERVALS,
  INTRADAY_STEP_MS,
  type Interval,
  type IntradayInterval,
  isIntraday,
  type SessionInterval,
} from './intervals.ts';

export interface Period {
  readonly interval: Interval;
  /** Bar time, Unix seconds UTC. */
  readonly time: number;
  /** Open of the period's first session (intraday: the period's start), Unix ms. */
  readonly startMs: number;
  /** Close of the period's last session (intraday: the period's end, cut at the close), Unix ms; excluded. */
  readonly endMs: number;
}

/** A session as numbers: its day (days since 1970-01-01, the UTC and New York date) and open/close in ms. */
export interface SessionTimes {
  readonly day: number;
  readonly openMs: number;
  readonly closeMs: number;
  readonly session: Session;
}

const FIRST_DAY = epochDayOfIsoDate(CALENDAR_RANGE.first);
const LAST_DAY = epochDayOfIsoDate(CALENDAR_RANGE.last);
const MS_PER_SECOND = 1_000;
const SECONDS_PER_DAY = 86_400;

/** The instants this module accepts: the UTC days of the calendar's range, [startMs, endMs). */
export const PERIOD_RANGE_MS: { readonly startMs: number; readonly endMs: number } = Object.freeze({
  startMs: FIRST_DAY * MS_PER_DAY,
  endMs: (LAST_DAY + 1) * MS_PER_DAY,
});

/** True when periods can be computed for the instant (finite, inside PERIOD_RANGE_MS). */
export function isInPeriodRange(instantMs: number): boolean {
  return instantMs >= PERIOD_RANGE_MS.startMs && instantMs < PERIOD_RANGE_MS.endMs;
}

function outOfRange(instantMs: number): RangeError {
  return new RangeError(
    `Instant ${instantMs} is outside the supported calendar range ${CALENDAR_RANGE.first} .. ${CALENDAR_RANGE.last} (UTC days)`,
  );
}

function dayOfInstant(instantMs: number): number {
  if (!isInPeriodRange(instantMs)) throw outOfRange(instantMs);
  return Math.floor(instantMs / MS_PER_DAY);
}

function assertDayInRange(epochDay: number): void {
  if (!Number.isInteger(epochDay) || epochDay < FIRST_DAY || epochDay > LAST_DAY) {
    throw new RangeError(
      `Day ${epochDay} is outside the supported calendar range ${CALENDAR_RANGE.first} .. ${CALENDAR_RANGE.last}`,
    );
  }
}

function assertInterval(interval: Interval): void {
  if (!INTERVALS.includes(interval)) throw new RangeError(`Unknown interval ${JSON.stringify(interval)}`);
}

// ---------------------------------------------------------------------------------------------------------
// Sessions as numbers, memoized per day.
// ---------------------------------------------------------------------------------------------------------

/** undefined: not looked up yet; null: no session that day. */
const timesByDay: (SessionTimes | null | undefined)[] = new Array(LAST_DAY - FIRST_DAY + 1).fill(undefined);

/** The session of a day in range, or null. */
function timesOfDay(epochDay: number): SessionTimes | null {
  const slot = timesByDay[epochDay - FIRST_DAY];
  if (slot !== undefined) return slot;
  const session = sessionOn(isoDateOf(epochDay));
  const times =
    session === undefined
      ? null
      : Object.freeze({
          day: epochDay,
          openMs: session.open.getTime(),
          closeMs: session.close.getTime(),
          session,
        });
  timesByDay[epochDay - FIRST_DAY] = times;
  return times;
}

let lastTimesHit: SessionTimes | undefined;

/**
 * The session with openMs <= instantMs < closeMs, if any. Every session lies inside one UTC day, its date.
 * A RangeError outside PERIOD_RANGE_MS (NaN included).
 */
export function sessionTimesAt(instantMs: number): SessionTimes | undefined {
  const last = lastTimesHit;
  if (last !== undefined && instantMs >= last.openMs && instantMs < last.closeMs) return last;
  const times = timesOfDay(dayOfInstant(instantMs));
  if (times === null || instantMs < times.openMs || instantMs >= times.closeMs) return undefined;
  lastTimesHit = times;
  return times;
}

// ---------------------------------------------------------------------------------------------------------
// Intraday periods.
// ---------------------------------------------------------------------------------------------------------

/** Start (ms) of the intraday period of `stepMs` holding an instant of the session. */
export function intradayStartMs(times: SessionTimes, stepMs: number, instantMs: number): number {
  const sinceOpen = instantMs - times.openMs;
  return times.openMs + (sinceOpen - (sinceOpen % stepMs));
}

function intradayPeriod(interval: IntradayInterval, times: SessionTimes, startMs: number): Period {
  const endMs = Math.min(startMs + INTRADAY_STEP_MS[interval], times.closeMs);
  return { interval, time: startMs / MS_PER_SECOND, startMs, endMs };
}

function firstIntradayPeriod(interval: IntradayInterval, times: SessionTimes): Period {
  return intradayPeriod(interval, times, times.openMs);
}

function lastIntradayPeriod(interval: IntradayInterval, times: SessionTimes): Period {
  return intradayPeriod(
    interval,
    times,
    intradayStartMs(times, INTRADAY_STEP_MS[interval], times.closeMs - 1),
  );
}

// ---------------------------------------------------------------------------------------------------------
// Periods made of sessions: a calendar span of days, from its first session to its last.
// ---------------------------------------------------------------------------------------------------------

interface DaySpan {
  readonly from: number;
  readonly to: number;
}

/** The calendar days of the period of `interval` around a day (a week: Monday to Sunday). */
function spanOfDay(interval: SessionInterval, epochDay: number): DaySpan {
  switch (interval) {
    case '1d':
      return { from: epochDay, to: epochDay };
    case '1w': {
      const monday = epochDay - ((weekdayOf(epochDay) + 6) % 7);
      return { from: monday, to: monday + 6 };
    }
    case '1mo': {
      const { year, month } = civilDateOf(epochDay);
      return { from: epochDayOf(year, month, 1), to: firstDayOfMonthAfter(year, month) - 1 };
    }
    case '1q': {
      const { year, month } = civilDateOf(epochDay);
      const firstMonth = month - ((month - 1) % 3);
      return { from: epochDayOf(year, firstMonth, 1), to: firstDayOfMonthAfter(year, firstMonth + 2) - 1 };
    }
    case '1y': {
      const { year } = civilDateOf(epochDay);
      return { from: epochDayOf(year, 1, 1), to: epochDayOf(year + 1, 1, 1) - 1 };
    }
  }
}

function firstDayOfMonthAfter(year: number, month: number): number {
  return month === 12 ? epochDayOf(year + 1, 1, 1) : epochDayOf(year, month + 1, 1);
}

const SESSION_INTERVALS: readonly SessionInterval[] = ['1d', '1w', '1mo', '1q', '1y'];

/** Per interval: day -> the period of the span holding that day (null: the span has no session). */
const periodByDay = new Map<SessionInterval, Map<number, Period | null>>(
  SESSION_INTERVALS.map((interval) => [interval, new Map()]),
);

function buildSpanPeriod(interval: SessionInterval, span: DaySpan): Period | null {
  const from = Math.max(span.from, FIRST_DAY);
  const to = Math.min(span.to, LAST_DAY);
  let first: SessionTimes | null = null;
  for (let day = from; day <= to && first === null; day++) first = timesOfDay(day);
  if (first === null) return null;
  let last: SessionTimes | null = null;
  for (let day = to; day >= first.day && last === null; day--) last = timesOfDay(day);
  if (last === null) return null;
  return Object.freeze({
    interval,
    time: first.day * SECONDS_PER_DAY,
    startMs: first.openMs,
    endMs: last.closeMs,
  });
}

/**
 * The period of a session-made interval (`1d` .. `1y`) whose calendar span holds a day (days since
 * 1970-01-01), whether or not the day itself has a session; undefined when the span has no session (a
 * weekend day's `1d`). A RangeError for a day outside the calendar's range.
 */
export function calendarPeriodOfDay(interval: SessionInterval, epochDay: number): Period | undefined {
  assertDayInRange(epochDay);
  const memo = periodByDay.get(interval);
  if (memo === undefined) throw new RangeError(`Not a session interval: ${JSON.stringify(interval)}`);
  let period = memo.get(epochDay);
  if (period === undefined) {
    period = buildSpanPeriod(interval, spanOfDay(interval, epochDay));
    memo.set(epochDay, period);
  }
  return period ?? undefined;
}

// ---------------------------------------------------------------------------------------------------------
// The API.
// ---------------------------------------------------------------------------------------------------------

/** The period of `interval` holding an instant of a session (`times` must hold `instantMs`). */
export function periodInSession(interval: Interval, times: SessionTimes, instantMs: number): Period {
  if (isIntraday(interval)) {
    return intradayPeriod(interval, times, intradayStartMs(times, INTRADAY_STEP_MS[interval], instantMs));
  }
  const period = calendarPeriodOfDay(interval, times.day);
  if (period === undefined) throw new Error(`No ${interval} period holds ${times.session.date}`);
  return period;
}

/**
 * The period of `interval` a trade at `instantMs` belongs to; undefined when the instant is outside every
 * session (pre-market, after hours, weekends, holidays: such trades are ignored). Open is inside, close is
 * not. A RangeError outside PERIOD_RANGE_MS.
 */
export function periodAt(interval: Interval, instantMs: number): Period | undefined {
  assertInterval(interval);
  const times = sessionTimesAt(instantMs);
  return times === undefined ? undefined : periodInSession(interval, times, instantMs);
}

/**
 * The period that contains "now" (docs/strat.md#the-three-candles-and-now): the period whose
 * [startMs, endMs), from the open of its first session to the close of its last, holds `nowMs`. Between
 * sessions no intraday, daily or weekly period contains now; a monthly, quarterly or yearly one does unless
 * now is past its last close or before its first open (a Saturday after the month's last session: none for
 * `1mo`).
 */
export function currentPeriod(interval: Interval, nowMs: number): Period | undefined {
  assertInterval(interval);
  if (isIntraday(interval)) return periodAt(interval, nowMs);
  const period = calendarPeriodOfDay(interval, dayOfInstant(nowMs));
  return period !== undefined && nowMs >= period.startMs && nowMs < period.endMs ? period : undefined;
}

/**
 * Every period of `interval` in a session, in order: intraday, the session's periods from the open to the
 * close; `1d` and longer, the one period that holds the session.
 */
export function sessionPeriods(interval: Interval, session: Session): Period[] {
  assertInterval(interval);
  const times = timesOfDay(dayOfInstant(session.open.getTime()));
  if (times === null || times.session.date !== session.date) {
    throw new RangeError(`Not a session of the calendar: ${session.date}`);
  }
  if (!isIntraday(interval)) return [periodInSession(interval, times, times.openMs)];
  const periods: Period[] = [];
  for (let startMs = times.openMs; startMs < times.closeMs; startMs += INTRADAY_STEP_MS[interval]) {
    periods.push(intradayPeriod(interval, times, startMs));
  }
  return periods;
}

function sessionOfPeriod(period: Period): SessionTimes {
  const times = sessionTimesAt(period.startMs);
  if (times === undefined) throw new RangeError(`Not a period of the calendar: ${JSON.stringify(period)}`);
  return times;
}

/** The first session strictly after a day, or null at the end of the range. */
function sessionAfter(epochDay: number): SessionTimes | null {
  for (let day = epochDay + 1; day <= LAST_DAY; day++) {
    const times = timesOfDay(day);
    if (times !== null) return times;
  }
  return null;
}

/** The last session strictly before a day, or null at the start of the range. */
function sessionBefore(epochDay: number): SessionTimes | null {
  for (let day = epochDay - 1; day >= FIRST_DAY; day--) {
    const times = timesOfDay(day);
    if (times !== null) return times;
  }
  return null;
}

/**
 * The period of the same interval right after `period` (skipping nights, weekends and holidays: the next
 * one that has a session); undefined past the calendar's range. `period` must come from this module.
 */
export function nextPeriod(period: Period): Period | undefined {
  const { interval } = period;
  if (isIntraday(interval)) {
    const times = sessionOfPeriod(period);
    if (period.endMs < times.closeMs) return intradayPeriod(interval, times, period.endMs);
    const next = sessionAfter(times.day);
    return next === null ? undefined : firstIntradayPeriod(interval, next);
  }
  for (let day = spanOfDay(interval, period.time / SECONDS_PER_DAY).to + 1; day <= LAST_DAY; ) {
    const found = calendarPeriodOfDay(interval, day);
    if (found !== undefined) return found;
    day = spanOfDay(interval, day).to + 1;
  }
  return undefined;
}

/** The period of the same interval right before `period`; undefined before the calendar's range. */
export function previousPeriod(period: Period): Period | undefined {
  const { interval } = period;
  if (isIntraday(interval)) {
    const times = sessionOfPeriod(period);
    if (period.startMs > times.openMs) {
      return intradayPeriod(interval, times, period.startMs - INTRADAY_STEP_MS[interval]);
    }
    const previous = sessionBefore(times.day);
    return previous === null ? undefined : lastIntradayPeriod(interval, previous);
  }
  for (let day = spanOfDay(interval, period.time / SECONDS_PER_DAY).from - 1; day >= FIRST_DAY; ) {
    const found = calendarPeriodOfDay(interval, day);
    if (found !== undefined) return found;
    day = spanOfDay(interval, day).from - 1;
  }
  return undefined;
}
