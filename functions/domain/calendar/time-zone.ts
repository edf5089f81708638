/**
 * America/New_York time arithmetic on the built-in `Intl` API, plus the small civil-date helpers the market
 * calendar needs. Pure: every instant is passed in.
 *
 * Speed: Intl is slow (a `formatToParts` call costs microseconds), so it is asked once per UTC day and the
 * answer memoized. New York changes its offset at most once in a UTC day (on a Sunday, at 02:00 local), so
 * a day whose first and last milliseconds share an offset has that offset throughout. Only on the rare change days is Intl asked per call. Everything else is integer arithmetic.
 *
 * Offsets are whole minutes. New York's only offset that is not (local mean time, -04:56:02, before
 * 1883-11-18) is rounded to the minute.
 */

export const NEW_YORK_TIME_ZONE = 'America/New_York';

export const MS_PER_SECOND = 1_000;
export const MS_PER_MINUTE = 60_000;
export const MS_PER_DAY = 86_400_000;

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

// ---------------------------------------------------------------------------------------------------------
// Civil dates as day numbers (days since 1970-01-01), after Howard Hinnant's chrono-compatible algorithms.
// ---------------------------------------------------------------------------------------------------------

/** Days since 1970-01-01 of a proleptic Gregorian calendar date (month 1-12). */
export function epochDayOf(year: number, month: number, day: number): number {
  const shiftedYear = month <= 2 ? year - 1 : year;
  const era = Math.floor(shiftedYear / 400);
  const yearOfEra = shiftedYear - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** The calendar date of a day number. */
export function civilDateOf(epochDay: number): { year: number; month: number; day: number } {
  const shifted = epochDay + 719_468;
  const era = Math.floor(shifted / 146_097);
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthIndex = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthIndex + 2) / 5) + 1;
  const month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9;
  return { year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/** `YYYY-MM-DD` of a day number. */
export function isoDateOf(epochDay: number): string {
  const { year, month, day } = civilDateOf(epochDay);
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
}

/** Day number of a strict `YYYY-MM-DD` date; a RangeError for anything else (including 2023-02-29). */
export function epochDayOfIsoDate(date: string): number {
  const match = typeof date === 'string' ? ISO_DATE.exec(date) : null;
  if (match === null) throw new RangeError(`Invalid date ${JSON.stringify(date)}: expected YYYY-MM-DD`);
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    throw new RangeError(`Invalid date ${JSON.stringify(date)}: no such calendar day`);
  }
  return epochDayOf(year, month, day);
}

/** Day of the week of a day number: 0 Sunday ... 6 Saturday (1970-01-01 was a Thursday). */
export function weekdayOf(epochDay: number): number {
  return (((epochDay + 4) % 7) + 7) % 7;
}

function daysInMonth(year: number, month: number): number {
  return month === 12 ? 31 : epochDayOf(year, month + 1, 1) - epochDayOf(year, month, 1);
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

// ---------------------------------------------------------------------------------------------------------
// The New York UTC offset.
// ---------------------------------------------------------------------------------------------------------

let wallClockFormat: Intl.DateTimeFormat | undefined;

/** Created once: constructing an Intl.DateTimeFormat costs far more than using one. */
function newYorkWallClockFormat(): Intl.DateTimeFormat {
  wallClockFormat ??= new Intl.DateTimeFormat('en-US', {
    timeZone: NEW_YORK_TIME_ZONE,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  return wallClockFormat;
}

/** The offset straight from Intl: New York's wall clock read as if it were UTC, minus the instant. */
function offsetMinutesFromIntl(epochMs: number): number {
  const fields: Record<string, number> = {};
  for (const part of newYorkWallClockFormat().formatToParts(epochMs)) {
    if (part.type !== 'literal') fields[part.type] = Number(part.value);
  }
  const wallClockAsUtc = Date.UTC(
    fields.year ?? Number.NaN,
    (fields.month ?? Number.NaN) - 1,
    fields.day ?? Number.NaN,
    fields.hour ?? Number.NaN,
    fields.minute ?? Number.NaN,
    fields.second ?? Number.NaN,
  );
  const wholeSecond = Math.floor(epochMs / MS_PER_SECOND) * MS_PER_SECOND;
  return Math.round((wallClockAsUtc - wholeSecond) / MS_PER_MINUTE);
}

/** Per UTC day: its one offset, or NaN on a day the offset changes. */
const offsetByUtcDay = new Map<number, number>();
let lastUtcDay = Number.NaN;
let lastUtcDayOffset = Number.NaN;

function offsetOfWholeUtcDay(utcDay: number): number {
  const atStart = offsetMinutesFromIntl(utcDay * MS_PER_DAY);
  const atEnd = offsetMinutesFromIntl((utcDay + 1) * MS_PER_DAY - 1);
  return atStart === atEnd ? atStart : Number.NaN;
}

function offsetMinutesAt(epochMs: number): number {
  const utcDay = Math.floor(epochMs / MS_PER_DAY);
  if (utcDay !== lastUtcDay) {
    let offset = offsetByUtcDay.get(utcDay);
    if (offset === undefined) {
      offset = offsetOfWholeUtcDay(utcDay);
      offsetByUtcDay.set(utcDay, offset);
    }
    lastUtcDay = utcDay;
    lastUtcDayOffset = offset;
  }
  return Number.isNaN(lastUtcDayOffset) ? offsetMinutesFromIntl(epochMs) : lastUtcDayOffset;
}

function epochMsOf(instant: Date): number {
  const epochMs = instant instanceof Date ? instant.getTime() : Number.NaN;
  if (Number.isNaN(epochMs)) throw new RangeError('Invalid Date: expected a valid Date instance');
  return epochMs;
}

/** New York's UTC offset at an instant, in minutes: -300 (EST) or -240 (EDT). */
export function newYorkOffsetMinutes(instant: Date): number {
  return offsetMinutesAt(epochMsOf(instant));
}

// ---------------------------------------------------------------------------------------------------------
// Conversions.
// ---------------------------------------------------------------------------------------------------------

let lastLocalDay = Number.NaN;
let lastLocalDate = '';

/** `YYYY-MM-DD` of a day number, remembering the last one (consecutive trades share a day). */
function isoDateOfCached(epochDay: number): string {
  if (epochDay !== lastLocalDay) {
    lastLocalDate = isoDateOf(epochDay);
    lastLocalDay = epochDay;
  }
  return lastLocalDate;
}

/** New York's wall clock at an instant, as milliseconds since 1970-01-01T00:00 of that wall clock. */
function newYorkWallClockMs(epochMs: number): number {
  return epochMs + offsetMinutesAt(epochMs) * MS_PER_MINUTE;
}

/** The New York calendar date (`YYYY-MM-DD`) of an instant. */
export function newYorkDate(instant: Date): string {
  return isoDateOfCached(Math.floor(newYorkWallClockMs(epochMsOf(instant)) / MS_PER_DAY));
}

/**
 * The instant at which New York's wall clock shows `date` at `minutesOfDay` past midnight (9*60+30 for
 * 09:30). Like Temporal's 'compatible' disambiguation: a wall time skipped by the spring change (02:30) is
 * read with the winter offset, so lands an hour later (03:30 EDT); one repeated by the autumn change (01:30)
 * is its first occurrence (01:30 EDT).
 */
export function newYorkWallTimeToUtc(date: string, minutesOfDay: number): Date {
  if (!Number.isFinite(minutesOfDay)) throw new RangeError(`Invalid minutes of day ${minutesOfDay}`);
  const wallClockMs = epochDayOfIsoDate(date) * MS_PER_DAY + minutesOfDay * MS_PER_MINUTE;
  return new Date(utcOfWallClockMs(wallClockMs));
}

function utcOfWallClockMs(wallClockMs: number): number {
  // Offsets a day either side: New York never changes twice within two days.
  const offsetBefore = offsetMinutesAt(wallClockMs - MS_PER_DAY);
  const offsetAfter = offsetMinutesAt(wallClockMs + MS_PER_DAY);
  const readWithOffsetBefore = wallClockMs - offsetBefore * MS_PER_MINUTE;
  if (offsetBefore === offsetAfter) return readWithOffsetBefore;
  const readWithOffsetAfter = wallClockMs - offsetAfter * MS_PER_MINUTE;
  const beforeFits = offsetMinutesAt(readWithOffsetBefore) === offsetBefore;
  const afterFits = offsetMinutesAt(readWithOffsetAfter) === offsetAfter;
  if (beforeFits && afterFits) return Math.min(readWithOffsetBefore, readWithOffsetAfter);
  if (afterFits) return readWithOffsetAfter;
  return readWithOffsetBefore;
}

/** `YYYY-MM-DDTHH:MM:SS` of a wall clock in milliseconds, truncated to the second. */
function formatWallClockSeconds(wallClockMs: number): string {
  const day = Math.floor(wallClockMs / MS_PER_DAY);
  const secondOfDay = Math.floor((wallClockMs - day * MS_PER_DAY) / MS_PER_SECOND);
  const hours = Math.floor(secondOfDay / 3600);
  const minutes = Math.floor((secondOfDay % 3600) / 60);
  const seconds = secondOfDay % 60;
  return `${isoDateOfCached(day)}T${pad(hours, 2)}:${pad(minutes, 2)}:${pad(seconds, 2)}`;
}

/** `-05:00`, `-04:00`, `+00:00`. */
function formatOffset(offsetMinutes: number): string {
  const sign = offsetMinutes < 0 ? '-' : '+';
  const magnitude = Math.abs(offsetMinutes);
  return `${sign}${pad(Math.floor(magnitude / 60), 2)}:${pad(magnitude % 60, 2)}`;
}

/** ISO 8601 in New York with its offset, to the second: `2024-11-29T10:00:00-05:00`. */
export function formatNewYorkIso(instant: Date): string {
  const epochMs = epochMsOf(instant);
  const offsetMinutes = offsetMinutesAt(epochMs);
  return `${formatWallClockSeconds(epochMs + offsetMinutes * MS_PER_MINUTE)}${formatOffset(offsetMinutes)}`;
}

/** ISO 8601 in UTC, to the second, with `Z`: `2024-11-29T14:30:00Z`. */
export function formatUtcIso(instant: Date): string {
  return `${formatWallClockSeconds(epochMsOf(instant))}Z`;
}
