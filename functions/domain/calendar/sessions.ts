/**
 * The NYSE regular-trading-hours calendar, 1990-01-01 .. 2099-12-31.
 *
 * Source of every rule: pandas_market_calendars (rsheftel/pandas_market_calendars),
 * `pandas_market_calendars/holidays/nyse.py` (the rules) and `pandas_market_calendars/calendars/nyse.py`
 * (which rules apply, and at what time), itself built on the NYSE's own closings history
 * ("Stocks.NYSE-Closings.pdf") and the NYSE's yearly holiday announcements. Only rules and dates that touch
 * 1990 or later are carried over. pmc = pandas_market_calendars.
 *
 * Regular session: 09:30-16:00 America/New_York, Monday to Friday (pmc: open 09:30 since 1985, close 16:00
 * since 1974).
 *
 * Full-day holidays (a date that falls on a weekend is listed as observed):
 * | Holiday                              | Rule                                                   | pmc name                       |
 * |--------------------------------------|--------------------------------------------------------|--------------------------------|
 * | New Year's Day                       | Jan 1; Sunday -> Monday Jan 2; Saturday: not observed   | USNewYearsDayNYSEpost1952      |
 * | Martin Luther King Jr. Day           | 3rd Monday of January, from 1998                       | USMartinLutherKingJrAfter1998  |
 * | Washington's Birthday                | 3rd Monday of February                                 | USPresidentsDay                |
 * | Good Friday                          | 2 days before (Gregorian) Easter Sunday                | GoodFriday                     |
 * | Memorial Day                         | last Monday of May                                     | USMemorialDay                  |
 * | Juneteenth National Independence Day | Jun 19 from 2022; Saturday -> Fri, Sunday -> Mon       | USJuneteenthAfter2022          |
 * | Independence Day                     | Jul 4; Saturday -> Fri Jul 3, Sunday -> Mon Jul 5      | USIndependenceDay              |
 * | Labor Day                            | 1st Monday of September                                | USLaborDayStarting1887         |
 * | Thanksgiving Day                     | 4th Thursday of November                               | USThanksgivingDay              |
 * | Christmas Day                        | Dec 25; Saturday -> Fri Dec 24, Sunday -> Mon Dec 26   | Christmas54to98NYSE, ChristmasNYSE |
 *
 * Special full-day closures (pmc `adhoc_holidays`, every one since 1990):
 * | Date                     | Reason                                          | pmc name                    |
 * |--------------------------|-------------------------------------------------|-----------------------------|
 * | 1994-04-27               | Funeral of former President Richard Nixon       | NixonFuneral1994            |
 * | 2001-09-11 .. 2001-09-14 | September 11 attacks                            | September11Closings2001     |
 * | 2004-06-11               | National Day of Mourning, President Reagan      | ReaganMourning2004          |
 * | 2007-01-02               | National Day of Mourning, President Ford        | FordMourning2007            |
 * | 2012-10-29 .. 2012-10-30 | Hurricane Sandy                                 | HurricaneSandyClosings2012  |
 * | 2018-12-05               | National Day of Mourning, President G.H.W. Bush | GeorgeHWBushDeath2018       |
 * | 2025-01-09               | National Day of Mourning, President Carter      | JimmyCarterDeath2025        |
 *
 * Early closes (a holiday or closure on the same date wins):
 * | Rule                                                   | Close | pmc name                                       |
 * |--------------------------------------------------------|-------|------------------------------------------------|
 * | Jul 3 on a Monday, Tuesday or Thursday, from 1995      | 13:00 | MonTuesThursBeforeIndependenceDay              |
 * | Jul 3 on a Wednesday, from 2013                        | 13:00 | WednesdayBeforeIndependenceDayPost2013         |
 * | Jul 5 on a Friday (Jul 4 a Thursday), 1996 .. 2012     | 13:00 | FridayAfterIndependenceDayNYSEpre2013          |
 * | Day after Thanksgiving, 1992                           | 14:00 | DayAfterThanksgiving2pmEarlyCloseBefore1993    |
 * | Day after Thanksgiving, from 1993                      | 13:00 | DayAfterThanksgiving1pmEarlyCloseInOrAfter1993 |
 * | Dec 24 on a Monday .. Thursday, from 1999              | 13:00 | ChristmasEvePost1999Early1pmClose              |
 * | Christmas Eve 1990-12-24, 1991-12-24, 1992-12-24       | 14:00 | ChristmasEve2pmEarlyCloseAdhoc                 |
 * | Christmas Eve 1996-12-24, 1997-12-24, 1998-12-24 (and  | 13:00 | ChristmasEve1pmEarlyCloseAdhoc                 |
 * |   1999-12-24, which is the observed Christmas: closed) |       |                                                |
 * | Day after Christmas 1997-12-26, 2003-12-26             | 13:00 | DayAfterChristmas1pmEarlyCloseAdhoc            |
 * | New Year's Eve 1999-12-31 (the Y2K changeover)         | 13:00 | (not in pmc; NYSE closed at 1 pm that day)      |
 * | 1994-02-11 snowstorm                                   | 14:30 | Snow230pmEarlyClose1994                        |
 * | 1996-01-08 snowstorm                                   | 14:00 | Snow2pmEarlyClose1996                          |
 * | 1997-10-27 circuit breaker triggered                   | 15:30 | CircuitBreakerTriggered330pmEarlyClose1997     |
 * | 2005-06-01 systems communication problem               | 15:56 | SystemProb356pmEarlyClose2005                  |
 * So before 1995 there is no early close around Independence Day, and before 1992 none after Thanksgiving.
 *
 * Not modelled: pmc's late opens (e.g. 09:31-09:33 moments of silence, 2002-09-11 12:00, 1996-01-08 11:00);
 * every session here opens at 09:30. pmc also lists ChristmasEvePost1999Early1pmClose and the day after
 * Thanksgiving under a 17:00 close (its post-market end); the RTH close on those days is 13:00.
 *
 * Speed: sessions are built a year at a time, on first use, into an array indexed by day number, so every
 * lookup after the first is O(1). Every session lies inside one UTC day (09:30 New York is 13:30Z or 14:30Z,
 * 16:00 is 20:00Z or 21:00Z), so `sessionAt` finds its candidate by the instant's UTC day, without Intl.
 * Sessions and their Dates are shared between callers: do not mutate them.
 */
import {
  civilDateOf,
  epochDayOf,
  epochDayOfIsoDate,
  formatNewYorkIso,
  isoDateOf,
  MS_PER_DAY,
  newYorkDate,
  newYorkWallTimeToUtc,
  weekdayOf,
} from './time-zone.ts';

export interface Session {
  /** `YYYY-MM-DD`, New York. */
  readonly date: string;
  readonly open: Date;
  readonly close: Date;
  /** True when the session closes before 16:00. */
  readonly earlyClose: boolean;
}

export const CALENDAR_RANGE: { readonly first: string; readonly last: string } = Object.freeze({
  first: '1990-01-01',
  last: '2099-12-31',
});

const SUNDAY = 0;
const MONDAY = 1;
const TUESDAY = 2;
const WEDNESDAY = 3;
const THURSDAY = 4;
const FRIDAY = 5;
const SATURDAY = 6;

const REGULAR_OPEN = hoursAndMinutes(9, 30);
const REGULAR_CLOSE = hoursAndMinutes(16, 0);
const ONE_PM = hoursAndMinutes(13, 0);
const TWO_PM = hoursAndMinutes(14, 0);

const FIRST_DAY = epochDayOfIsoDate(CALENDAR_RANGE.first);
const LAST_DAY = epochDayOfIsoDate(CALENDAR_RANGE.last);

function hoursAndMinutes(hours: number, minutes: number): number {
  return hours * 60 + minutes;
}

// ---------------------------------------------------------------------------------------------------------
// Day arithmetic for the rules.
// ---------------------------------------------------------------------------------------------------------

/** The nth (1-based) given weekday of a month. */
function nthWeekdayOfMonth(year: number, month: number, weekday: number, nth: number): number {
  const first = epochDayOf(year, month, 1);
  return first + ((weekday - weekdayOf(first) + 7) % 7) + 7 * (nth - 1);
}

/** The last given weekday of a month. */
function lastWeekdayOfMonth(year: number, month: number, weekday: number): number {
  const last = epochDayOf(year, month + 1, 1) - 1;
  return last - ((weekdayOf(last) - weekday + 7) % 7);
}

/** Saturday -> the Friday before, Sunday -> the Monday after (pandas' `nearest_workday`). */
function nearestWeekday(epochDay: number): number {
  const weekday = weekdayOf(epochDay);
  if (weekday === SATURDAY) return epochDay - 1;
  if (weekday === SUNDAY) return epochDay + 1;
  return epochDay;
}

/** Gregorian Easter Sunday (the anonymous Meeus/Jones/Butcher algorithm). */
function easterSunday(year: number): number {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return epochDayOf(year, month, day);
}

function isWeekend(epochDay: number): boolean {
  const weekday = weekdayOf(epochDay);
  return weekday === SATURDAY || weekday === SUNDAY;
}

/** The day if it falls on one of the weekdays, else undefined. */
function onlyOn(epochDay: number, weekdays: readonly number[]): number | undefined {
  return weekdays.includes(weekdayOf(epochDay)) ? epochDay : undefined;
}

// ---------------------------------------------------------------------------------------------------------
// The rules (see the tables at the top).
// ---------------------------------------------------------------------------------------------------------

interface YearlyHoliday {
  readonly name: string;
  readonly firstYear?: number;
  /** The observed day in a year, or undefined when not observed that year. */
  readonly observedIn: (year: number) => number | undefined;
}

interface YearlyEarlyClose {
  readonly name: string;
  readonly firstYear: number;
  readonly lastYear?: number;
  readonly close: number;
  readonly dayIn: (year: number) => number | undefined;
}

interface DatedEvent {
  readonly date: string;
  readonly name: string;
}

interface DatedEarlyClose extends DatedEvent {
  readonly close: number;
}

function observedNewYearsDay(year: number): number | undefined {
  const newYearsDay = epochDayOf(year, 1, 1);
  const weekday = weekdayOf(newYearsDay);
  if (weekday === SATURDAY) return undefined; // NYSE: no Friday Dec 31 closure
  return weekday === SUNDAY ? newYearsDay + 1 : newYearsDay;
}

const YEARLY_HOLIDAYS: readonly YearlyHoliday[] = [
  { name: "New Year's Day", observedIn: observedNewYearsDay },
  {
    name: 'Martin Luther King Jr. Day',
    firstYear: 1998,
    observedIn: (year) => nthWeekdayOfMonth(year, 1, MONDAY, 3),
  },
  { name: "Washington's Birthday", observedIn: (year) => nthWeekdayOfMonth(year, 2, MONDAY, 3) },
  { name: 'Good Friday', observedIn: (year) => easterSunday(year) - 2 },
  { name: 'Memorial Day', observedIn: (year) => lastWeekdayOfMonth(year, 5, MONDAY) },
  {
    name: 'Juneteenth National Independence Day',
    firstYear: 2022,
    observedIn: (year) => nearestWeekday(epochDayOf(year, 6, 19)),
  },
  { name: 'Independence Day', observedIn: (year) => nearestWeekday(epochDayOf(year, 7, 4)) },
  { name: 'Labor Day', observedIn: (year) => nthWeekdayOfMonth(year, 9, MONDAY, 1) },
  { name: 'Thanksgiving Day', observedIn: (year) => nthWeekdayOfMonth(year, 11, THURSDAY, 4) },
  { name: 'Christmas Day', observedIn: (year) => nearestWeekday(epochDayOf(year, 12, 25)) },
];

const SPECIAL_CLOSURES: readonly DatedEvent[] = [
  { date: '1994-04-27', name: 'Funeral of former President Richard Nixon' },
  { date: '2001-09-11', name: 'September 11 attacks' },
  { date: '2001-09-12', name: 'September 11 attacks' },
  { date: '2001-09-13', name: 'September 11 attacks' },
  { date: '2001-09-14', name: 'September 11 attacks' },
  { date: '2004-06-11', name: 'National Day of Mourning for former President Ronald Reagan' },
  { date: '2007-01-02', name: 'National Day of Mourning for former President Gerald Ford' },
  { date: '2012-10-29', name: 'Hurricane Sandy' },
  { date: '2012-10-30', name: 'Hurricane Sandy' },
  { date: '2018-12-05', name: 'National Day of Mourning for former President George H.W. Bush' },
  { date: '2025-01-09', name: 'National Day of Mourning for former President Jimmy Carter' },
];

const dayAfterThanksgiving = (year: number): number => nthWeekdayOfMonth(year, 11, THURSDAY, 4) + 1;

const YEARLY_EARLY_CLOSES: readonly YearlyEarlyClose[] = [
  {
    name: 'Day before Independence Day',
    firstYear: 1995,
    close: ONE_PM,
    dayIn: (year) => onlyOn(epochDayOf(year, 7, 3), [MONDAY, TUESDAY, THURSDAY]),
  },
  {
    name: 'Day before Independence Day',
    firstYear: 2013,
    close: ONE_PM,
    dayIn: (year) => onlyOn(epochDayOf(year, 7, 3), [WEDNESDAY]),
  },
  {
    name: 'Day after Independence Day',
    firstYear: 1996,
    lastYear: 2012,
    close: ONE_PM,
    dayIn: (year) => onlyOn(epochDayOf(year, 7, 5), [FRIDAY]),
  },
  {
    name: 'Day after Thanksgiving',
    firstYear: 1992,
    lastYear: 1992,
    close: TWO_PM,
    dayIn: dayAfterThanksgiving,
  },
  { name: 'Day after Thanksgiving', firstYear: 1993, close: ONE_PM, dayIn: dayAfterThanksgiving },
  {
    name: 'Christmas Eve',
    firstYear: 1999,
    close: ONE_PM,
    dayIn: (year) => onlyOn(epochDayOf(year, 12, 24), [MONDAY, TUESDAY, WEDNESDAY, THURSDAY]),
  },
];

const DATED_EARLY_CLOSES: readonly DatedEarlyClose[] = [
  { date: '1990-12-24', name: 'Christmas Eve', close: TWO_PM },
  { date: '1991-12-24', name: 'Christmas Eve', close: TWO_PM },
  { date: '1992-12-24', name: 'Christmas Eve', close: TWO_PM },
  { date: '1994-02-11', name: 'Snowstorm', close: hoursAndMinutes(14, 30) },
  { date: '1996-01-08', name: 'Snowstorm', close: TWO_PM },
  { date: '1996-12-24', name: 'Christmas Eve', close: ONE_PM },
  { date: '1997-10-27', name: 'Circuit breaker triggered', close: hoursAndMinutes(15, 30) },
  { date: '1997-12-24', name: 'Christmas Eve', close: ONE_PM },
  { date: '1997-12-26', name: 'Day after Christmas', close: ONE_PM },
  { date: '1998-12-24', name: 'Christmas Eve', close: ONE_PM },
  { date: '1999-12-24', name: 'Christmas Eve', close: ONE_PM }, // the observed Christmas Day: closed
  { date: '1999-12-31', name: "New Year's Eve", close: ONE_PM }, // the Y2K changeover
  { date: '2003-12-26', name: 'Day after Christmas', close: ONE_PM },
  { date: '2005-06-01', name: 'Systems communication problem', close: hoursAndMinutes(15, 56) },
];

// ---------------------------------------------------------------------------------------------------------
// The memo: one slot per day of the range, filled a year at a time.
// ---------------------------------------------------------------------------------------------------------

interface EarlyClose {
  readonly name: string;
  readonly close: number;
}

/** undefined: year not built yet; null: no session (weekend, holiday, closure). */
const sessionByDay: (Session | null | undefined)[] = new Array(LAST_DAY - FIRST_DAY + 1).fill(undefined);
const closureNameByDay = new Map<number, string>();
const earlyCloseByDay = new Map<number, EarlyClose>();

function inYears(
  year: number,
  firstYear = Number.NEGATIVE_INFINITY,
  lastYear = Number.POSITIVE_INFINITY,
): boolean {
  return year >= firstYear && year <= lastYear;
}

function yearOfIsoDate(date: string): number {
  return Number(date.slice(0, 4));
}

function closuresIn(year: number): Map<number, string> {
  const closures = new Map<number, string>();
  for (const holiday of YEARLY_HOLIDAYS) {
    const day = inYears(year, holiday.firstYear) ? holiday.observedIn(year) : undefined;
    if (day !== undefined) closures.set(day, holiday.name);
  }
  for (const closure of SPECIAL_CLOSURES) {
    if (yearOfIsoDate(closure.date) === year) closures.set(epochDayOfIsoDate(closure.date), closure.name);
  }
  return closures;
}

function earlyClosesIn(year: number): Map<number, EarlyClose> {
  const earlyCloses = new Map<number, EarlyClose>();
  for (const rule of YEARLY_EARLY_CLOSES) {
    const day = inYears(year, rule.firstYear, rule.lastYear) ? rule.dayIn(year) : undefined;
    if (day !== undefined) earlyCloses.set(day, { name: rule.name, close: rule.close });
  }
  for (const dated of DATED_EARLY_CLOSES) {
    if (yearOfIsoDate(dated.date) === year) {
      earlyCloses.set(epochDayOfIsoDate(dated.date), { name: dated.name, close: dated.close });
    }
  }
  return earlyCloses;
}

function buildSession(epochDay: number, earlyClose: EarlyClose | undefined): Session {
  const date = isoDateOf(epochDay);
  const close = earlyClose?.close ?? REGULAR_CLOSE;
  return Object.freeze({
    date,
    open: newYorkWallTimeToUtc(date, REGULAR_OPEN),
    close: newYorkWallTimeToUtc(date, close),
    earlyClose: close < REGULAR_CLOSE,
  });
}

function buildYear(year: number): void {
  const closures = closuresIn(year);
  const earlyCloses = earlyClosesIn(year);
  const firstDay = Math.max(epochDayOf(year, 1, 1), FIRST_DAY);
  const lastDay = Math.min(epochDayOf(year + 1, 1, 1) - 1, LAST_DAY);
  for (let day = firstDay; day <= lastDay; day++) {
    sessionByDay[day - FIRST_DAY] = isWeekend(day) ? null : buildWeekday(day, closures, earlyCloses);
  }
}

/** A weekday: closed (remembering why) or a session (remembering why it closes early). */
function buildWeekday(
  epochDay: number,
  closures: Map<number, string>,
  earlyCloses: Map<number, EarlyClose>,
): Session | null {
  const closureName = closures.get(epochDay);
  if (closureName !== undefined) {
    closureNameByDay.set(epochDay, closureName);
    return null;
  }
  const earlyClose = earlyCloses.get(epochDay);
  if (earlyClose !== undefined) earlyCloseByDay.set(epochDay, earlyClose);
  return buildSession(epochDay, earlyClose);
}

/** The memo slot of a day in range, building its year on first use. */
function sessionOfDay(epochDay: number): Session | null {
  const slot = sessionByDay[epochDay - FIRST_DAY];
  if (slot !== undefined) return slot;
  buildYear(civilDateOf(epochDay).year);
  return sessionByDay[epochDay - FIRST_DAY] ?? null;
}

function outOfRange(what: string): RangeError {
  return new RangeError(
    `${what} is outside the supported NYSE calendar range ${CALENDAR_RANGE.first} .. ${CALENDAR_RANGE.last}`,
  );
}

/** Day number of a date in range; a RangeError otherwise. */
function dayInRange(date: string): number {
  const epochDay = epochDayOfIsoDate(date);
  if (epochDay < FIRST_DAY || epochDay > LAST_DAY) throw outOfRange(date);
  return epochDay;
}

function assertInstantInRange(instant: Date, epochMs: number): void {
  const utcDay = Math.floor(epochMs / MS_PER_DAY);
  if (utcDay > FIRST_DAY && utcDay < LAST_DAY) return;
  const newYorkDay = epochDayOfIsoDate(newYorkDate(instant));
  if (newYorkDay < FIRST_DAY || newYorkDay > LAST_DAY) throw outOfRange(formatNewYorkIso(instant));
}

// ---------------------------------------------------------------------------------------------------------
// The API. Dates are `YYYY-MM-DD` New York dates; a malformed or out-of-range date is a RangeError.
// ---------------------------------------------------------------------------------------------------------

/** The session on a date; undefined on a weekend, holiday or special closure. */
export function sessionOn(date: string): Session | undefined {
  return sessionOfDay(dayInRange(date)) ?? undefined;
}

/** Every session from `from` to `to`, both included, in order. A RangeError if `from` is after `to`. */
export function sessionsBetween(from: string, to: string): Session[] {
  const firstDay = dayInRange(from);
  const lastDay = dayInRange(to);
  if (firstDay > lastDay) throw new RangeError(`Invalid range: ${from} is after ${to}`);
  const sessions: Session[] = [];
  for (let day = firstDay; day <= lastDay; day++) {
    const session = sessionOfDay(day);
    if (session !== null) sessions.push(session);
  }
  return sessions;
}

let lastSessionHit: Session | undefined;

/** The session with open <= instant < close, if any. O(1), no Intl after the year's first use. */
export function sessionAt(instant: Date): Session | undefined {
  const epochMs = instant instanceof Date ? instant.getTime() : Number.NaN;
  const last = lastSessionHit;
  if (last !== undefined && epochMs >= last.open.getTime() && epochMs < last.close.getTime()) return last;
  if (Number.isNaN(epochMs)) throw new RangeError('Invalid Date: expected a valid Date instance');
  assertInstantInRange(instant, epochMs);
  const utcDay = Math.floor(epochMs / MS_PER_DAY);
  if (utcDay < FIRST_DAY || utcDay > LAST_DAY) return undefined;
  const session = sessionOfDay(utcDay);
  if (session === null || epochMs < session.open.getTime() || epochMs >= session.close.getTime()) {
    return undefined;
  }
  lastSessionHit = session;
  return session;
}

/** The last session strictly before a date (which need not be a trading day); undefined before the range. */
export function previousSession(date: string): Session | undefined {
  for (let day = dayInRange(date) - 1; day >= FIRST_DAY; day--) {
    const session = sessionOfDay(day);
    if (session !== null) return session;
  }
  return undefined;
}

/** The first session strictly after a date (which need not be a trading day); undefined past the range. */
export function nextSession(date: string): Session | undefined {
  for (let day = dayInRange(date) + 1; day <= LAST_DAY; day++) {
    const session = sessionOfDay(day);
    if (session !== null) return session;
  }
  return undefined;
}

/** True when the NYSE holds a regular session that day (full or early close). */
export function isTradingDay(date: string): boolean {
  return sessionOn(date) !== undefined;
}

/**
 * The name of the holiday or special closure that shuts the NYSE on a weekday ('Thanksgiving Day',
 * 'Hurricane Sandy'); on an observed date, the holiday's own name ('Independence Day' on Friday 2026-07-03).
 * Undefined on trading days and weekends.
 */
export function holidayName(date: string): string | undefined {
  const epochDay = dayInRange(date);
  sessionOfDay(epochDay);
  return closureNameByDay.get(epochDay);
}

/** Why a session closes early ('Christmas Eve', 'Day after Thanksgiving'); undefined on full days. */
export function earlyCloseName(date: string): string | undefined {
  const epochDay = dayInRange(date);
  sessionOfDay(epochDay);
  return earlyCloseByDay.get(epochDay)?.name;
}
