import { describe, expect, it } from 'vitest';
import {
  CALENDAR_RANGE,
  earlyCloseName,
  holidayName,
  isTradingDay,
  nextSession,
  previousSession,
  type Session,
  sessionAt,
  sessionOn,
  sessionsBetween,
} from '#domain/calendar/sessions';
import { formatNewYorkIso } from '#domain/calendar/time-zone';

const at = (iso: string): Date => new Date(iso);

function requireSession(date: string): Session {
  const session = sessionOn(date);
  if (session === undefined) throw new Error(`expected a session on ${date}`);
  return session;
}

const OUT_OF_RANGE = /outside the supported NYSE calendar range 1990-01-01 \.\. 2099-12-31/;

describe('regular holidays', () => {
  it.each([
    ["New Year's Day", '2024-01-01', 'on a Monday'],
    ["New Year's Day", '2023-01-02', 'observed Monday (Jan 1 a Sunday)'],
    ["New Year's Day", '2017-01-02', 'observed Monday (Jan 1 a Sunday)'],
    ['Martin Luther King Jr. Day', '1998-01-19', 'in its first year'],
    ['Martin Luther King Jr. Day', '2022-01-17', 'third Monday of January'],
    ['Martin Luther King Jr. Day', '2024-01-15', 'third Monday of January'],
    ["Washington's Birthday", '1990-02-19', 'third Monday of February'],
    ["Washington's Birthday", '2024-02-19', 'third Monday of February'],
    ['Good Friday', '1990-04-13', 'Easter 1990-04-15'],
    ['Good Friday', '2008-03-21', 'Easter 2008-03-23'],
    ['Good Friday', '2024-03-29', 'Easter 2024-03-31'],
    ['Good Friday', '2025-04-18', 'Easter 2025-04-20'],
    ['Good Friday', '2038-04-23', 'Easter 2038-04-25'],
    ['Good Friday', '2099-04-10', 'Easter 2099-04-12'],
    ['Memorial Day', '2021-05-31', 'last Monday of May, on the 31st'],
    ['Memorial Day', '2024-05-27', 'last Monday of May'],
    ['Juneteenth National Independence Day', '2022-06-20', 'observed Monday (Jun 19 a Sunday), first year'],
    ['Juneteenth National Independence Day', '2024-06-19', 'on a Wednesday'],
    ['Juneteenth National Independence Day', '2027-06-18', 'observed Friday (Jun 19 a Saturday)'],
    ['Independence Day', '2024-07-04', 'on a Thursday'],
    ['Independence Day', '2020-07-03', 'observed Friday (Jul 4 a Saturday)'],
    ['Independence Day', '2026-07-03', 'observed Friday (Jul 4 a Saturday)'],
    ['Independence Day', '2021-07-05', 'observed Monday (Jul 4 a Sunday)'],
    ['Labor Day', '2024-09-02', 'first Monday of September'],
    ['Thanksgiving Day', '2023-11-23', 'fourth Thursday of November'],
    ['Thanksgiving Day', '2024-11-28', 'fourth Thursday of November'],
    ['Christmas Day', '2024-12-25', 'on a Wednesday'],
    ['Christmas Day', '2021-12-24', 'observed Friday (Dec 25 a Saturday)'],
    ['Christmas Day', '2010-12-24', 'observed Friday (Dec 25 a Saturday)'],
    ['Christmas Day', '1999-12-24', 'observed Friday, over the ad hoc 1999 Christmas Eve early close'],
    ['Christmas Day', '2022-12-26', 'observed Monday (Dec 25 a Sunday)'],
    ['Christmas Day', '2016-12-26', 'observed Monday (Dec 25 a Sunday)'],
  ])('closes on %s %s (%s)', (name, date) => {
    expect(sessionOn(date)).toBeUndefined();
    expect(isTradingDay(date)).toBe(false);
    expect(holidayName(date)).toBe(name);
  });

  it.each([
    ['2021-12-31', "the Friday before a Saturday New Year's Day (not observed)"],
    ['2010-12-31', "the Friday before a Saturday New Year's Day (not observed)"],
    ['2022-01-03', "the Monday after a Saturday New Year's Day"],
    ['1997-01-20', 'the third Monday of January before MLK Day was observed (1998)'],
    ['2021-06-18', 'the Friday before Juneteenth 2021, before it was observed (2022)'],
    ['2020-06-19', 'Juneteenth 2020, before it was observed'],
    ['2021-07-02', 'the Friday before a Sunday Independence Day'],
    ['2022-12-23', 'the Friday before a Sunday Christmas'],
    ['2023-12-22', 'the Friday before a Monday Christmas'],
  ])('opens on %s, %s', (date) => {
    expect(isTradingDay(date)).toBe(true);
    expect(holidayName(date)).toBeUndefined();
  });

  it.each([
    ['2022-01-01', "a Saturday New Year's Day"],
    ['2026-07-04', 'a Saturday Independence Day'],
    ['2022-12-25', 'a Sunday Christmas Day'],
    ['2024-11-30', 'a plain Saturday'],
    ['2024-12-01', 'a plain Sunday'],
  ])('is closed without a holiday name on the weekend day %s (%s)', (date) => {
    expect(isTradingDay(date)).toBe(false);
    expect(holidayName(date)).toBeUndefined();
  });
});

describe('special closures', () => {
  it.each([
    ['1994-04-27', 'Funeral of former President Richard Nixon'],
    ['2001-09-11', 'September 11 attacks'],
    ['2001-09-12', 'September 11 attacks'],
    ['2001-09-13', 'September 11 attacks'],
    ['2001-09-14', 'September 11 attacks'],
    ['2004-06-11', 'National Day of Mourning for former President Ronald Reagan'],
    ['2007-01-02', 'National Day of Mourning for former President Gerald Ford'],
    ['2012-10-29', 'Hurricane Sandy'],
    ['2012-10-30', 'Hurricane Sandy'],
    ['2018-12-05', 'National Day of Mourning for former President George H.W. Bush'],
    ['2025-01-09', 'National Day of Mourning for former President Jimmy Carter'],
  ])('closes on %s (%s)', (date, name) => {
    expect(sessionOn(date)).toBeUndefined();
    expect(holidayName(date)).toBe(name);
  });

  it.each([
    ['1994-04-26'],
    ['1994-04-28'],
    ['2001-09-10'],
    ['2001-09-17'],
    ['2004-06-10'],
    ['2004-06-14'],
    ['2007-01-03'],
    ['2012-10-26'],
    ['2012-10-31'],
    ['2018-12-04'],
    ['2018-12-06'],
    ['2025-01-08'],
    ['2025-01-10'],
  ])('opens for a full day on %s, next to a closure', (date) => {
    expect(requireSession(date).earlyClose).toBe(false);
  });
});

describe('early closes', () => {
  it.each([
    // Day before Independence Day: Jul 3 on Mon, Tue, Thu from 1995; on Wed from 2013.
    ['1995-07-03', 'Monday Jul 3 in the first year of the rule', '17:00', 'Day before Independence Day'],
    ['2017-07-03', 'Monday Jul 3', '17:00', 'Day before Independence Day'],
    ['2023-07-03', 'Monday Jul 3', '17:00', 'Day before Independence Day'],
    ['2012-07-03', 'Tuesday Jul 3', '17:00', 'Day before Independence Day'],
    ['2018-07-03', 'Tuesday Jul 3', '17:00', 'Day before Independence Day'],
    ['2013-07-03', 'Wednesday Jul 3 in 2013, the first year', '17:00', 'Day before Independence Day'],
    ['2019-07-03', 'Wednesday Jul 3', '17:00', 'Day before Independence Day'],
    ['2024-07-03', 'Wednesday Jul 3', '17:00', 'Day before Independence Day'],
    ['2008-07-03', 'Thursday Jul 3', '17:00', 'Day before Independence Day'],
    ['2014-07-03', 'Thursday Jul 3', '17:00', 'Day before Independence Day'],
    ['2025-07-03', 'Thursday Jul 3', '17:00', 'Day before Independence Day'],
    // Friday Jul 5 when Jul 4 was a Thursday, 1996 .. 2012.
    ['1996-07-05', 'Friday Jul 5, first year', '17:00', 'Day after Independence Day'],
    ['2002-07-05', 'Friday Jul 5', '17:00', 'Day after Independence Day'],
    // Day after Thanksgiving: 14:00 in 1992, 13:00 from 1993.
    ['1992-11-27', 'day after Thanksgiving 1992 at 14:00', '19:00', 'Day after Thanksgiving'],
    ['1993-11-26', 'day after Thanksgiving 1993', '18:00', 'Day after Thanksgiving'],
    ['2024-11-29', 'day after Thanksgiving 2024', '18:00', 'Day after Thanksgiving'],
    // Christmas Eve, Monday to Thursday from 1999; ad hoc before.
    ['2018-12-24', 'Christmas Eve on a Monday', '18:00', 'Christmas Eve'],
    ['2024-12-24', 'Christmas Eve on a Tuesday', '18:00', 'Christmas Eve'],
    ['2025-12-24', 'Christmas Eve on a Wednesday', '18:00', 'Christmas Eve'],
    ['2020-12-24', 'Christmas Eve on a Thursday', '18:00', 'Christmas Eve'],
    ['1990-12-24', 'Christmas Eve 1990 at 14:00', '19:00', 'Christmas Eve'],
    ['1991-12-24', 'Christmas Eve 1991 at 14:00', '19:00', 'Christmas Eve'],
    ['1992-12-24', 'Christmas Eve 1992 at 14:00', '19:00', 'Christmas Eve'],
    ['1996-12-24', 'Christmas Eve 1996', '18:00', 'Christmas Eve'],
    ['1997-12-24', 'Christmas Eve 1997', '18:00', 'Christmas Eve'],
    ['1998-12-24', 'Christmas Eve 1998', '18:00', 'Christmas Eve'],
    // Ad hoc.
    ['1997-12-26', 'the Friday after Christmas 1997', '18:00', 'Day after Christmas'],
    ['2003-12-26', 'the Friday after Christmas 2003', '18:00', 'Day after Christmas'],
    ['1999-12-31', "New Year's Eve 1999 (Y2K)", '18:00', "New Year's Eve"],
    ['1994-02-11', 'the 1994 snowstorm at 14:30', '19:30', 'Snowstorm'],
    ['1996-01-08', 'the 1996 snowstorm at 14:00', '19:00', 'Snowstorm'],
    ['1997-10-27', 'the 1997 circuit breaker at 15:30', '20:30', 'Circuit breaker triggered'],
    ['2005-06-01', 'the 2005 systems problem at 15:56 EDT', '19:56', 'Systems communication problem'],
  ])('closes early on %s, %s, at %sZ', (date, _label, utcClose, name) => {
    const session = requireSession(date);
    expect(session.earlyClose).toBe(true);
    expect(session.close.toISOString()).toBe(`${date}T${utcClose}:00.000Z`);
    expect(session.open.toISOString().slice(11, 16)).toMatch(/^1[34]:30$/);
    expect(earlyCloseName(date)).toBe(name);
  });

  it.each([
    ['1990-07-03', 'Tuesday Jul 3 before the rule began (1995)'],
    ['1991-07-03', 'Wednesday Jul 3 before 2013'],
    ['2002-07-03', 'Wednesday Jul 3 before 2013 (Friday Jul 5 closed early instead)'],
    ['1991-07-05', 'Friday Jul 5 before the rule began (1996)'],
    ['2013-07-05', 'Friday Jul 5 from 2013 (Wednesday Jul 3 closes early instead)'],
    ['2019-07-05', 'Friday Jul 5 2019'],
    ['2024-07-05', 'Friday Jul 5 2024'],
    ['2021-07-02', 'Friday Jul 2 when Jul 3 is a Saturday'],
    ['1991-11-29', 'the day after Thanksgiving before 1992'],
    ['2022-12-23', 'Friday Dec 23 when Christmas Eve is a Saturday'],
    ['2023-12-22', 'Friday Dec 22 when Christmas Eve is a Sunday'],
    ['2008-12-26', 'the Friday after Christmas 2008'],
    ['2014-12-26', 'the Friday after Christmas 2014'],
    ['2025-12-26', 'the Friday after Christmas 2025'],
    ['2024-11-27', 'the day before Thanksgiving'],
  ])('trades a full day on %s (%s)', (date) => {
    const session = requireSession(date);
    expect(session.earlyClose).toBe(false);
    expect(formatNewYorkIso(session.close).slice(11, 19)).toBe('16:00:00');
    expect(earlyCloseName(date)).toBeUndefined();
  });

  it.each([
    ['2020-07-03', 'Friday Jul 3: Independence Day observed'],
    ['2015-07-03', 'Friday Jul 3: Independence Day observed'],
    ['2021-12-24', 'Christmas Eve on a Friday: Christmas Day observed'],
    ['2027-12-24', 'Christmas Eve on a Friday: Christmas Day observed'],
    ['1999-12-24', 'Christmas Eve 1999: Christmas Day observed'],
  ])('is closed, not early, on %s (%s)', (date) => {
    expect(sessionOn(date)).toBeUndefined();
    expect(earlyCloseName(date)).toBeUndefined();
  });

  it.each([
    ['2022-12-24', 'Christmas Eve on a Saturday'],
    ['2023-12-24', 'Christmas Eve on a Sunday'],
    ['2021-07-03', 'Jul 3 on a Saturday'],
    ['2022-07-03', 'Jul 3 on a Sunday'],
  ])('has no session on %s (%s)', (date) => {
    expect(sessionOn(date)).toBeUndefined();
    expect(holidayName(date)).toBeUndefined();
  });

  it.each([
    [2021, ['2021-11-26']],
    [2022, ['2022-11-25']],
    [2023, ['2023-07-03', '2023-11-24']],
    [2024, ['2024-07-03', '2024-11-29', '2024-12-24']],
    [2025, ['2025-07-03', '2025-11-28', '2025-12-24']],
  ])('has exactly the early closes of %i', (year, dates) => {
    const early = sessionsBetween(`${year}-01-01`, `${year}-12-31`).filter((session) => session.earlyClose);
    expect(early.map((session) => session.date)).toEqual(dates);
  });
});

describe('session times and daylight saving time', () => {
  it.each([
    ['2024-03-08', 'the Friday before the spring change (EST)', '14:30', '21:00'],
    ['2024-03-11', 'the Monday after the spring change (EDT)', '13:30', '20:00'],
    ['2024-11-01', 'the Friday before the autumn change (EDT)', '13:30', '20:00'],
    ['2024-11-04', 'the Monday after the autumn change (EST)', '14:30', '21:00'],
    ['2006-03-13', 'mid-March 2006, still EST under the pre-2007 rules', '14:30', '21:00'],
    ['2006-04-03', 'the Monday after the 2006 spring change (first Sunday of April)', '13:30', '20:00'],
    ['2007-03-12', 'the Monday after the 2007 spring change (second Sunday of March)', '13:30', '20:00'],
    ['2006-10-30', 'the Monday after the 2006 autumn change (last Sunday of October)', '14:30', '21:00'],
    ['1990-01-02', 'the first session of the range', '14:30', '21:00'],
    ['2099-12-31', 'the last session of the range', '14:30', '21:00'],
  ])('opens and closes %s, %s, at %sZ and %sZ', (date, _label, open, close) => {
    const session = requireSession(date);
    expect(session.date).toBe(date);
    expect(session.open.toISOString()).toBe(`${date}T${open}:00.000Z`);
    expect(session.close.toISOString()).toBe(`${date}T${close}:00.000Z`);
    expect(session.earlyClose).toBe(false);
  });

  it('opens every session of the whole range at 09:30 New York and closes it by 16:00 the same day', () => {
    const sessions = sessionsBetween(CALENDAR_RANGE.first, CALENDAR_RANGE.last);
    expect(sessions).toHaveLength(27_644);
    const wrong = sessions.filter((session) => {
      const open = formatNewYorkIso(session.open);
      const close = formatNewYorkIso(session.close);
      const closeTime = close.slice(11, 19);
      return (
        open.slice(0, 19) !== `${session.date}T09:30:00` ||
        close.slice(0, 10) !== session.date ||
        closeTime > '16:00:00' ||
        closeTime < '16:00:00' !== session.earlyClose
      );
    });
    expect(wrong).toEqual([]);
  });
});

describe('sessionsBetween', () => {
  // Each count is the year's weekdays minus its weekday closures, worked out by hand:
  it.each([
    [1990, 253, '261 weekdays - 8 holidays (no MLK Day yet)'],
    [2001, 248, '261 weekdays - 9 holidays - 4 days after 9/11'],
    [2012, 250, '261 weekdays - 9 holidays - 2 Hurricane Sandy days'],
    [2018, 251, '261 weekdays - 9 holidays - G.H.W. Bush mourning day'],
    [2019, 252, '261 weekdays - 9 holidays'],
    [2020, 253, '262 weekdays - 9 holidays'],
    [2021, 252, "261 weekdays - 9 holidays (Saturday New Year's Day 2022 not observed)"],
    [2022, 251, "260 weekdays - 9 holidays (Saturday New Year's Day not observed)"],
    [2023, 250, '260 weekdays - 10 holidays'],
    [2024, 252, '262 weekdays - 10 holidays'],
    [2025, 250, '261 weekdays - 10 holidays - Carter mourning day'],
  ])('counts %i sessions in %i (%s)', (year, expected) => {
    expect(sessionsBetween(`${year}-01-01`, `${year}-12-31`)).toHaveLength(expected);
  });

  it('includes both ends, in order', () => {
    expect(sessionsBetween('2024-11-27', '2024-12-02').map((session) => session.date)).toEqual([
      '2024-11-27',
      '2024-11-29',
      '2024-12-02',
    ]);
  });

  it('returns a single session for a one-day trading range', () => {
    expect(sessionsBetween('2024-11-29', '2024-11-29')).toEqual([sessionOn('2024-11-29')]);
  });

  it('returns no session for a weekend and holiday range', () => {
    expect(sessionsBetween('2024-12-25', '2024-12-25')).toEqual([]);
    expect(sessionsBetween('2024-11-30', '2024-12-01')).toEqual([]);
  });

  it('rejects a range whose start is after its end', () => {
    expect(() => sessionsBetween('2024-12-02', '2024-11-29')).toThrow(RangeError);
  });

  it('returns the same memoized Session objects as sessionOn', () => {
    const [first] = sessionsBetween('2024-07-01', '2024-07-01');
    expect(first).toBe(sessionOn('2024-07-01'));
    expect(Object.isFrozen(first)).toBe(true);
  });
});

describe('sessionAt', () => {
  it.each([
    ['exactly at the open', '2024-07-01T13:30:00.000Z', '2024-07-01'],
    ['mid-session', '2024-11-27T16:00:00.000Z', '2024-11-27'],
    ['one millisecond before the close', '2024-07-01T19:59:59.999Z', '2024-07-01'],
    ['on an early-close day before 13:00', '2024-11-29T17:59:59.999Z', '2024-11-29'],
    ['the Monday after the spring change at 09:30 EDT', '2024-03-11T13:30:00.000Z', '2024-03-11'],
    ['the Monday after the autumn change at 09:30 EST', '2024-11-04T14:30:00.000Z', '2024-11-04'],
  ])('finds the session %s (%s)', (_label, iso, date) => {
    expect(sessionAt(at(iso))?.date).toBe(date);
  });

  it.each([
    ['one millisecond before the open', '2024-07-01T13:29:59.999Z'],
    ['exactly at the close', '2024-07-01T20:00:00.000Z'],
    ['after hours', '2024-07-01T22:00:00.000Z'],
    ['pre-market', '2024-07-01T12:00:00.000Z'],
    ['exactly at an early close', '2024-11-29T18:00:00.000Z'],
    ['on an early-close afternoon', '2024-11-29T18:30:00.000Z'],
    ['on a Saturday', '2024-11-30T16:00:00.000Z'],
    ['on Thanksgiving Day', '2024-11-28T16:00:00.000Z'],
    ['at 16:30 EDT on the Monday after the spring change (15:30 if EST were kept)', '2024-03-11T20:30:00Z'],
    ['at 09:00 EST on the Monday after the autumn change (10:00 if EDT were kept)', '2024-11-04T14:00:00Z'],
    ["on New Year's Day 1990, the first day of the range", '1990-01-01T05:00:00Z'],
    ['at the last New York second of the range', '2100-01-01T04:59:59Z'],
  ])('finds no session %s (%s)', (_label, iso) => {
    expect(sessionAt(at(iso))).toBeUndefined();
  });

  it('is open through the whole 2024-03-11 EDT session and closed before it', () => {
    expect(sessionAt(at('2024-03-11T19:59:59Z'))?.date).toBe('2024-03-11');
    expect(sessionAt(at('2024-03-11T20:00:00Z'))).toBeUndefined();
  });

  it('returns the memoized Session of the day', () => {
    expect(sessionAt(at('2024-11-29T15:00:00Z'))).toBe(sessionOn('2024-11-29'));
  });

  it.each([
    ['before the range', '1989-12-29T15:00:00Z'],
    ['at 1990-01-01T04:59:59Z, still 1989-12-31 in New York', '1990-01-01T04:59:59Z'],
    ['at 2100-01-01T05:00:00Z, 2100-01-01 in New York', '2100-01-01T05:00:00Z'],
    ['after the range', '2100-01-04T15:00:00Z'],
  ])('throws a RangeError %s', (_label, iso) => {
    expect(() => sessionAt(at(iso))).toThrow(OUT_OF_RANGE);
  });

  it('throws a RangeError for an invalid Date', () => {
    expect(() => sessionAt(new Date(Number.NaN))).toThrow(RangeError);
  });
});

describe('previousSession and nextSession', () => {
  it.each([
    ['2024-12-02', '2024-11-29', 'over a weekend'],
    ['2024-11-29', '2024-11-27', 'over Thanksgiving'],
    ['2024-11-28', '2024-11-27', 'from a holiday'],
    ['2024-11-30', '2024-11-29', 'from a Saturday'],
    ['2001-09-17', '2001-09-10', 'over the September 11 closures'],
    ['2025-01-02', '2024-12-31', "over New Year's Day"],
    ['1990-01-03', '1990-01-02', 'to the first session of the range'],
  ])('previousSession(%s) is %s (%s)', (date, expected) => {
    expect(previousSession(date)?.date).toBe(expected);
  });

  it.each([
    ['2024-11-27', '2024-11-29', 'over Thanksgiving'],
    ['2024-11-29', '2024-12-02', 'over a weekend'],
    ['2024-12-24', '2024-12-26', 'over Christmas'],
    ['2024-12-31', '2025-01-02', "over New Year's Day"],
    ['2001-09-10', '2001-09-17', 'over the September 11 closures'],
    ['2012-10-26', '2012-10-31', 'over Hurricane Sandy'],
    ['2099-12-30', '2099-12-31', 'to the last session of the range'],
  ])('nextSession(%s) is %s (%s)', (date, expected) => {
    expect(nextSession(date)?.date).toBe(expected);
  });

  it('has nothing before the first session or after the last one of the range', () => {
    expect(previousSession('1990-01-02')).toBeUndefined();
    expect(previousSession('1990-01-01')).toBeUndefined();
    expect(nextSession('2099-12-31')).toBeUndefined();
  });
});

describe('range and input errors', () => {
  it('covers 1990-01-01 to 2099-12-31', () => {
    expect(CALENDAR_RANGE).toEqual({ first: '1990-01-01', last: '2099-12-31' });
  });

  it.each([
    ['sessionOn before the range', () => sessionOn('1989-12-29')],
    ['sessionOn after the range', () => sessionOn('2100-01-04')],
    ['isTradingDay after the range', () => isTradingDay('2100-01-01')],
    ['holidayName before the range', () => holidayName('1989-12-25')],
    ['earlyCloseName after the range', () => earlyCloseName('2100-12-24')],
    ['sessionsBetween starting before the range', () => sessionsBetween('1989-12-01', '1990-01-05')],
    ['sessionsBetween ending after the range', () => sessionsBetween('2099-12-01', '2100-01-05')],
    ['previousSession before the range', () => previousSession('1989-12-31')],
    ['nextSession after the range', () => nextSession('2100-01-01')],
  ])('throws a RangeError naming the range: %s', (_label, call) => {
    expect(call).toThrow(RangeError);
    expect(call).toThrow(OUT_OF_RANGE);
  });

  it.each([['2024-1-2'], ['2024-02-30'], ['2023-02-29'], ['24-01-02'], ['2024-01-02T00:00:00Z'], ['']])(
    'rejects the malformed date %j with a RangeError',
    (date) => {
      expect(() => sessionOn(date)).toThrow(RangeError);
      expect(() => isTradingDay(date)).toThrow(/expected YYYY-MM-DD|no such calendar day/);
    },
  );
});
