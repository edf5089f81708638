import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  epochDayOf,
  epochDayOfIsoDate,
  formatNewYorkIso,
  formatUtcIso,
  isoDateOf,
  newYorkDate,
  newYorkOffsetMinutes,
  newYorkWallTimeToUtc,
  weekdayOf,
} from '#domain/calendar/time-zone';

const at = (iso: string): Date => new Date(iso);

/** Reference answers straight from Intl, formatted differently from the code under test. */
const referenceOffset = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/New_York',
  timeZoneName: 'longOffset',
});
const referenceDate = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'America/New_York',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

function intlOffsetMinutes(instant: Date): number {
  const name = referenceOffset.formatToParts(instant).find((part) => part.type === 'timeZoneName')?.value;
  const match = /GMT([+-])(\d{2}):(\d{2})/.exec(name ?? '');
  if (match === null) return 0; // 'GMT' alone means +00:00
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  return match[1] === '-' ? -minutes : minutes;
}

const HOUR = 3_600_000;
const FIRST_1990 = Date.UTC(1990, 0, 1);
const END_2099 = Date.UTC(2100, 0, 1);

describe('newYorkOffsetMinutes', () => {
  it.each([
    ['mid-winter', '2024-01-15T12:00:00Z', -300],
    ['mid-summer', '2024-07-01T12:00:00Z', -240],
    ['the last millisecond of EST before the 2024 spring change', '2024-03-10T06:59:59.999Z', -300],
    ['the instant of the 2024 spring change (02:00 EST)', '2024-03-10T07:00:00Z', -240],
    ['the last millisecond of EDT before the 2024 autumn change', '2024-11-03T05:59:59.999Z', -240],
    ['the instant of the 2024 autumn change (02:00 EDT)', '2024-11-03T06:00:00Z', -300],
    ['before the 2006 spring change (first Sunday of April, pre-2007 rules)', '2006-04-02T06:59:59Z', -300],
    ['after the 2006 spring change', '2006-04-02T07:00:00Z', -240],
    ['before the 2006 autumn change (last Sunday of October)', '2006-10-29T05:59:59Z', -240],
    ['after the 2006 autumn change', '2006-10-29T06:00:00Z', -300],
    ['the Unix epoch', '1970-01-01T00:00:00Z', -300],
  ])('is right at %s (%s)', (_label, iso, expected) => {
    expect(newYorkOffsetMinutes(at(iso))).toBe(expected);
  });

  it('matches Intl for every hour of 2024, change days included', () => {
    const mismatches: string[] = [];
    for (let epochMs = Date.UTC(2024, 0, 1); epochMs < Date.UTC(2025, 0, 1); epochMs += HOUR) {
      const instant = new Date(epochMs);
      if (newYorkOffsetMinutes(instant) !== intlOffsetMinutes(instant))
        mismatches.push(instant.toISOString());
    }
    expect(mismatches).toEqual([]);
  });

  it('matches Intl for random instants from 1990 to 2099', () => {
    fc.assert(
      fc.property(fc.integer({ min: FIRST_1990, max: END_2099 }), (epochMs) => {
        const instant = new Date(epochMs);
        expect(newYorkOffsetMinutes(instant)).toBe(intlOffsetMinutes(instant));
      }),
      { numRuns: 2_000 },
    );
  });

  it('rejects an invalid Date with a RangeError', () => {
    expect(() => newYorkOffsetMinutes(new Date(Number.NaN))).toThrow(RangeError);
  });
});

describe('newYorkDate', () => {
  it.each([
    ['2024-11-29T04:59:59Z', '2024-11-28'],
    ['2024-11-29T05:00:00Z', '2024-11-29'],
    ['2024-07-01T03:59:59Z', '2024-06-30'],
    ['2024-07-01T04:00:00Z', '2024-07-01'],
    ['2024-02-29T12:00:00Z', '2024-02-29'],
    ['2025-01-01T04:59:59.999Z', '2024-12-31'],
    ['2025-01-01T05:00:00Z', '2025-01-01'],
    ['2024-03-10T06:59:59Z', '2024-03-10'],
    ['2024-11-03T05:30:00Z', '2024-11-03'],
  ])('dates %s in New York as %s', (iso, expected) => {
    expect(newYorkDate(at(iso))).toBe(expected);
  });

  it('matches Intl for random instants from 1990 to 2099', () => {
    fc.assert(
      fc.property(fc.integer({ min: FIRST_1990, max: END_2099 }), (epochMs) => {
        const instant = new Date(epochMs);
        expect(newYorkDate(instant)).toBe(referenceDate.format(instant));
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('newYorkWallTimeToUtc', () => {
  it.each([
    ['09:30 on a winter day', '2024-11-29', 9 * 60 + 30, '2024-11-29T14:30:00.000Z'],
    ['09:30 on a summer day', '2024-07-01', 9 * 60 + 30, '2024-07-01T13:30:00.000Z'],
    ['13:00 on the day after Thanksgiving', '2024-11-29', 13 * 60, '2024-11-29T18:00:00.000Z'],
    ['midnight of the spring change day (still EST)', '2024-03-10', 0, '2024-03-10T05:00:00.000Z'],
    [
      '02:30, skipped by the spring change, read as 03:30 EDT',
      '2024-03-10',
      2 * 60 + 30,
      '2024-03-10T07:30:00.000Z',
    ],
    ['03:00 just after the spring change', '2024-03-10', 3 * 60, '2024-03-10T07:00:00.000Z'],
    ['09:30 on the Monday after the spring change', '2024-03-11', 9 * 60 + 30, '2024-03-11T13:30:00.000Z'],
    [
      '01:30, repeated by the autumn change, as its first (EDT) occurrence',
      '2024-11-03',
      90,
      '2024-11-03T05:30:00.000Z',
    ],
    ['03:00 after the autumn change (EST)', '2024-11-03', 3 * 60, '2024-11-03T08:00:00.000Z'],
    ['09:30 on the Monday after the autumn change', '2024-11-04', 9 * 60 + 30, '2024-11-04T14:30:00.000Z'],
    ['24:00, which is the next midnight', '2024-12-31', 24 * 60, '2025-01-01T05:00:00.000Z'],
  ])('converts %s', (_label, date, minutes, expected) => {
    expect(newYorkWallTimeToUtc(date, minutes).toISOString()).toBe(expected);
  });

  it('round-trips every whole hour of 2024 outside the repeated autumn hour', () => {
    const repeatedHour = Date.parse('2024-11-03T06:00:00Z');
    const mismatches: string[] = [];
    for (let epochMs = Date.UTC(2024, 0, 1); epochMs < Date.UTC(2025, 0, 1); epochMs += HOUR) {
      const instant = new Date(epochMs);
      const wallClock = formatNewYorkIso(instant);
      const minutes = Number(wallClock.slice(11, 13)) * 60 + Number(wallClock.slice(14, 16));
      const roundTrip = newYorkWallTimeToUtc(newYorkDate(instant), minutes).getTime();
      if (epochMs !== repeatedHour && roundTrip !== epochMs) mismatches.push(wallClock);
    }
    expect(mismatches).toEqual([]);
  });

  it.each([['2024-02-30'], ['2024-1-5'], ['not a date']])('rejects the date %s with a RangeError', (date) => {
    expect(() => newYorkWallTimeToUtc(date, 0)).toThrow(RangeError);
  });

  it('rejects non-finite minutes with a RangeError', () => {
    expect(() => newYorkWallTimeToUtc('2024-01-02', Number.NaN)).toThrow(RangeError);
  });
});

describe('formatNewYorkIso', () => {
  it.each([
    ['2024-11-29T15:00:00Z', '2024-11-29T10:00:00-05:00'],
    ['2024-07-01T13:30:00Z', '2024-07-01T09:30:00-04:00'],
    ['2024-07-01T13:30:00.999Z', '2024-07-01T09:30:00-04:00'],
    ['2024-03-10T06:59:59Z', '2024-03-10T01:59:59-05:00'],
    ['2024-03-10T07:00:00Z', '2024-03-10T03:00:00-04:00'],
    ['2024-11-03T05:59:59Z', '2024-11-03T01:59:59-04:00'],
    ['2024-11-03T06:00:00Z', '2024-11-03T01:00:00-05:00'],
    ['2025-01-01T04:59:59Z', '2024-12-31T23:59:59-05:00'],
    ['1990-01-01T14:30:00Z', '1990-01-01T09:30:00-05:00'],
    ['2099-12-31T21:00:00Z', '2099-12-31T16:00:00-05:00'],
  ])('formats %s as %s', (iso, expected) => {
    expect(formatNewYorkIso(at(iso))).toBe(expected);
  });

  it('rejects an invalid Date with a RangeError', () => {
    expect(() => formatNewYorkIso(new Date('nope'))).toThrow(RangeError);
  });
});

describe('formatUtcIso', () => {
  it.each([
    ['2024-11-29T14:30:00.123Z', '2024-11-29T14:30:00Z'],
    ['1990-01-02T14:30:00Z', '1990-01-02T14:30:00Z'],
    ['2099-12-31T23:59:59.999Z', '2099-12-31T23:59:59Z'],
  ])('formats %s as %s', (iso, expected) => {
    expect(formatUtcIso(at(iso))).toBe(expected);
  });
});

describe('civil date helpers', () => {
  it.each([
    ['1970-01-01', 0, 4],
    ['1969-12-31', -1, 3],
    ['2000-02-29', 11_016, 2],
    ['2024-11-29', 20_056, 5],
    ['2099-12-31', 47_481, 4],
  ])('numbers %s as day %i, weekday %i', (date, epochDay, weekday) => {
    expect(epochDayOfIsoDate(date)).toBe(epochDay);
    expect(isoDateOf(epochDay)).toBe(date);
    expect(weekdayOf(epochDay)).toBe(weekday);
  });

  it('agrees with Date.UTC and round-trips every day from 1990 to 2099', () => {
    const mismatches: string[] = [];
    for (let day = epochDayOf(1990, 1, 1); day <= epochDayOf(2099, 12, 31); day++) {
      const iso = new Date(day * 86_400_000).toISOString().slice(0, 10);
      if (isoDateOf(day) !== iso || epochDayOfIsoDate(iso) !== day) mismatches.push(iso);
    }
    expect(mismatches).toEqual([]);
  });

  it.each([
    ['2023-02-29'],
    ['2100-02-29'],
    ['2024-13-01'],
    ['2024-00-10'],
    ['2024-04-31'],
    ['2024-1-1'],
    [''],
    ['2024-01-01T00:00:00Z'],
  ])('rejects %j with a RangeError', (date) => {
    expect(() => epochDayOfIsoDate(date)).toThrow(RangeError);
  });
});
