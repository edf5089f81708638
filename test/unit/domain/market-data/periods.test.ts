import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sessionOn } from '#domain/calendar/sessions';
import { INTERVALS, type Interval, isInterval, isIntraday } from '#domain/market-data/intervals';
import {
  calendarPeriodOfDay,
  currentPeriod,
  nextPeriod,
  type Period,
  periodAt,
  previousPeriod,
  sessionPeriods,
} from '#domain/market-data/periods';

const ms = (iso: string): number => Date.parse(iso);
const iso = (epochMs: number): string => new Date(epochMs).toISOString().replace('.000Z', 'Z');

/** A period as [bar time, start, end], ISO to the second. */
function shown(period: Period | undefined): [string, string, string] | undefined {
  return period === undefined ? undefined : [iso(period.time * 1000), iso(period.startMs), iso(period.endMs)];
}

function requirePeriod(period: Period | undefined): Period {
  if (period === undefined) throw new Error('expected a period');
  return period;
}

function requireSession(date: string) {
  const session = sessionOn(date);
  if (session === undefined) throw new Error(`expected a session on ${date}`);
  return session;
}

type Row = [label: string, interval: Interval, instant: string, time: string, start: string, end: string];

describe('intervals', () => {
  it('lists the ten intervals of docs/candles.md#intervals, shortest first', () => {
    expect(INTERVALS).toEqual(['1m', '15m', '30m', '60m', '4h', '1d', '1w', '1mo', '1q', '1y']);
  });

  it.each([
    ['1m', true],
    ['1y', true],
    ['1M', false],
    ['1h', false],
    ['', false],
    [undefined, false],
    [60, false],
  ])('isInterval(%j) is %s', (value, expected) => {
    expect(isInterval(value)).toBe(expected);
  });

  it('calls 1m .. 4h intraday and 1d .. 1y not', () => {
    expect(INTERVALS.filter(isIntraday)).toEqual(['1m', '15m', '30m', '60m', '4h']);
  });
});

describe('periodAt: anchoring of every interval', () => {
  it.each<Row>([
    // A normal day (EDT: 09:30 = 13:30Z, 16:00 = 20:00Z), Wednesday 2024-05-15 13:47:12 New York.
    [
      'normal day',
      '1m',
      '2024-05-15T17:47:12Z',
      '2024-05-15T17:47:00Z',
      '2024-05-15T17:47:00Z',
      '2024-05-15T17:48:00Z',
    ],
    [
      'normal day',
      '15m',
      '2024-05-15T17:47:12Z',
      '2024-05-15T17:45:00Z',
      '2024-05-15T17:45:00Z',
      '2024-05-15T18:00:00Z',
    ],
    [
      'normal day',
      '30m',
      '2024-05-15T17:47:12Z',
      '2024-05-15T17:30:00Z',
      '2024-05-15T17:30:00Z',
      '2024-05-15T18:00:00Z',
    ],
    [
      'normal day',
      '60m',
      '2024-05-15T17:47:12Z',
      '2024-05-15T17:30:00Z',
      '2024-05-15T17:30:00Z',
      '2024-05-15T18:30:00Z',
    ],
    [
      'normal day',
      '4h',
      '2024-05-15T17:47:12Z',
      '2024-05-15T17:30:00Z',
      '2024-05-15T17:30:00Z',
      '2024-05-15T20:00:00Z',
    ],
    [
      'normal day',
      '4h',
      '2024-05-15T17:29:59Z',
      '2024-05-15T13:30:00Z',
      '2024-05-15T13:30:00Z',
      '2024-05-15T17:30:00Z',
    ],
    [
      'normal day',
      '60m',
      '2024-05-15T19:59:59Z',
      '2024-05-15T19:30:00Z',
      '2024-05-15T19:30:00Z',
      '2024-05-15T20:00:00Z',
    ],
    [
      'normal day',
      '1d',
      '2024-05-15T17:47:12Z',
      '2024-05-15T00:00:00Z',
      '2024-05-15T13:30:00Z',
      '2024-05-15T20:00:00Z',
    ],
    [
      'normal day',
      '1w',
      '2024-05-15T17:47:12Z',
      '2024-05-13T00:00:00Z',
      '2024-05-13T13:30:00Z',
      '2024-05-17T20:00:00Z',
    ],
    [
      'normal day',
      '1mo',
      '2024-05-15T17:47:12Z',
      '2024-05-01T00:00:00Z',
      '2024-05-01T13:30:00Z',
      '2024-05-31T20:00:00Z',
    ],
    [
      'normal day',
      '1q',
      '2024-05-15T17:47:12Z',
      '2024-04-01T00:00:00Z',
      '2024-04-01T13:30:00Z',
      '2024-06-28T20:00:00Z',
    ],
    [
      'normal day',
      '1y',
      '2024-05-15T17:47:12Z',
      '2024-01-02T00:00:00Z',
      '2024-01-02T14:30:00Z',
      '2024-12-31T21:00:00Z',
    ],
    // Early close: Friday 2024-11-29 closes at 13:00 EST = 18:00Z.
    [
      'early close',
      '1m',
      '2024-11-29T17:59:59Z',
      '2024-11-29T17:59:00Z',
      '2024-11-29T17:59:00Z',
      '2024-11-29T18:00:00Z',
    ],
    [
      'early close',
      '15m',
      '2024-11-29T17:59:59Z',
      '2024-11-29T17:45:00Z',
      '2024-11-29T17:45:00Z',
      '2024-11-29T18:00:00Z',
    ],
    [
      'early close',
      '30m',
      '2024-11-29T17:59:59Z',
      '2024-11-29T17:30:00Z',
      '2024-11-29T17:30:00Z',
      '2024-11-29T18:00:00Z',
    ],
    [
      'early close',
      '60m',
      '2024-11-29T17:59:59Z',
      '2024-11-29T17:30:00Z',
      '2024-11-29T17:30:00Z',
      '2024-11-29T18:00:00Z',
    ],
    [
      'early close',
      '4h',
      '2024-11-29T17:59:59Z',
      '2024-11-29T14:30:00Z',
      '2024-11-29T14:30:00Z',
      '2024-11-29T18:00:00Z',
    ],
    [
      'early close',
      '1d',
      '2024-11-29T17:59:59Z',
      '2024-11-29T00:00:00Z',
      '2024-11-29T14:30:00Z',
      '2024-11-29T18:00:00Z',
    ],
    [
      'early close',
      '1w',
      '2024-11-29T17:59:59Z',
      '2024-11-25T00:00:00Z',
      '2024-11-25T14:30:00Z',
      '2024-11-29T18:00:00Z',
    ],
    [
      'early close',
      '1mo',
      '2024-11-29T17:59:59Z',
      '2024-11-01T00:00:00Z',
      '2024-11-01T13:30:00Z',
      '2024-11-29T18:00:00Z',
    ],
    [
      'early close',
      '1q',
      '2024-11-29T17:59:59Z',
      '2024-10-01T00:00:00Z',
      '2024-10-01T13:30:00Z',
      '2024-12-31T21:00:00Z',
    ],
    [
      'early close',
      '1y',
      '2024-11-29T17:59:59Z',
      '2024-01-02T00:00:00Z',
      '2024-01-02T14:30:00Z',
      '2024-12-31T21:00:00Z',
    ],
    // DST: Friday 2024-03-08 is EST (open 14:30Z), Monday 2024-03-11 EDT (open 13:30Z).
    [
      'before spring DST',
      '1m',
      '2024-03-08T14:30:00Z',
      '2024-03-08T14:30:00Z',
      '2024-03-08T14:30:00Z',
      '2024-03-08T14:31:00Z',
    ],
    [
      'before spring DST',
      '15m',
      '2024-03-08T14:44:59Z',
      '2024-03-08T14:30:00Z',
      '2024-03-08T14:30:00Z',
      '2024-03-08T14:45:00Z',
    ],
    [
      'before spring DST',
      '30m',
      '2024-03-08T20:59:59Z',
      '2024-03-08T20:30:00Z',
      '2024-03-08T20:30:00Z',
      '2024-03-08T21:00:00Z',
    ],
    [
      'before spring DST',
      '60m',
      '2024-03-08T20:59:59Z',
      '2024-03-08T20:30:00Z',
      '2024-03-08T20:30:00Z',
      '2024-03-08T21:00:00Z',
    ],
    [
      'before spring DST',
      '4h',
      '2024-03-08T20:59:59Z',
      '2024-03-08T18:30:00Z',
      '2024-03-08T18:30:00Z',
      '2024-03-08T21:00:00Z',
    ],
    [
      'before spring DST',
      '1d',
      '2024-03-08T15:00:00Z',
      '2024-03-08T00:00:00Z',
      '2024-03-08T14:30:00Z',
      '2024-03-08T21:00:00Z',
    ],
    [
      'before spring DST',
      '1w',
      '2024-03-08T15:00:00Z',
      '2024-03-04T00:00:00Z',
      '2024-03-04T14:30:00Z',
      '2024-03-08T21:00:00Z',
    ],
    [
      'after spring DST',
      '1m',
      '2024-03-11T13:30:00Z',
      '2024-03-11T13:30:00Z',
      '2024-03-11T13:30:00Z',
      '2024-03-11T13:31:00Z',
    ],
    [
      'after spring DST',
      '15m',
      '2024-03-11T13:44:59Z',
      '2024-03-11T13:30:00Z',
      '2024-03-11T13:30:00Z',
      '2024-03-11T13:45:00Z',
    ],
    [
      'after spring DST',
      '30m',
      '2024-03-11T19:59:59Z',
      '2024-03-11T19:30:00Z',
      '2024-03-11T19:30:00Z',
      '2024-03-11T20:00:00Z',
    ],
    [
      'after spring DST',
      '60m',
      '2024-03-11T19:59:59Z',
      '2024-03-11T19:30:00Z',
      '2024-03-11T19:30:00Z',
      '2024-03-11T20:00:00Z',
    ],
    [
      'after spring DST',
      '4h',
      '2024-03-11T19:59:59Z',
      '2024-03-11T17:30:00Z',
      '2024-03-11T17:30:00Z',
      '2024-03-11T20:00:00Z',
    ],
    [
      'after spring DST',
      '1d',
      '2024-03-11T15:00:00Z',
      '2024-03-11T00:00:00Z',
      '2024-03-11T13:30:00Z',
      '2024-03-11T20:00:00Z',
    ],
    [
      'after spring DST',
      '1w',
      '2024-03-11T15:00:00Z',
      '2024-03-11T00:00:00Z',
      '2024-03-11T13:30:00Z',
      '2024-03-15T20:00:00Z',
    ],
    [
      'after spring DST',
      '1mo',
      '2024-03-11T15:00:00Z',
      '2024-03-01T00:00:00Z',
      '2024-03-01T14:30:00Z',
      '2024-03-28T20:00:00Z',
    ],
    // Friday 2024-11-01 is EDT (open 13:30Z), Monday 2024-11-04 EST (open 14:30Z).
    [
      'before autumn DST',
      '1m',
      '2024-11-01T13:30:00Z',
      '2024-11-01T13:30:00Z',
      '2024-11-01T13:30:00Z',
      '2024-11-01T13:31:00Z',
    ],
    [
      'before autumn DST',
      '60m',
      '2024-11-01T19:30:00Z',
      '2024-11-01T19:30:00Z',
      '2024-11-01T19:30:00Z',
      '2024-11-01T20:00:00Z',
    ],
    [
      'before autumn DST',
      '4h',
      '2024-11-01T13:30:00Z',
      '2024-11-01T13:30:00Z',
      '2024-11-01T13:30:00Z',
      '2024-11-01T17:30:00Z',
    ],
    [
      'before autumn DST',
      '1d',
      '2024-11-01T13:30:00Z',
      '2024-11-01T00:00:00Z',
      '2024-11-01T13:30:00Z',
      '2024-11-01T20:00:00Z',
    ],
    [
      'before autumn DST',
      '1w',
      '2024-11-01T13:30:00Z',
      '2024-10-28T00:00:00Z',
      '2024-10-28T13:30:00Z',
      '2024-11-01T20:00:00Z',
    ],
    [
      'after autumn DST',
      '1m',
      '2024-11-04T14:30:00Z',
      '2024-11-04T14:30:00Z',
      '2024-11-04T14:30:00Z',
      '2024-11-04T14:31:00Z',
    ],
    [
      'after autumn DST',
      '60m',
      '2024-11-04T20:30:00Z',
      '2024-11-04T20:30:00Z',
      '2024-11-04T20:30:00Z',
      '2024-11-04T21:00:00Z',
    ],
    [
      'after autumn DST',
      '4h',
      '2024-11-04T14:30:00Z',
      '2024-11-04T14:30:00Z',
      '2024-11-04T14:30:00Z',
      '2024-11-04T18:30:00Z',
    ],
    [
      'after autumn DST',
      '1d',
      '2024-11-04T14:30:00Z',
      '2024-11-04T00:00:00Z',
      '2024-11-04T14:30:00Z',
      '2024-11-04T21:00:00Z',
    ],
    [
      'after autumn DST',
      '1w',
      '2024-11-04T14:30:00Z',
      '2024-11-04T00:00:00Z',
      '2024-11-04T14:30:00Z',
      '2024-11-08T21:00:00Z',
    ],
    // Year and quarter ends: the week of 2024-12-30 runs into 2025 and keeps its Monday.
    [
      'year end',
      '1d',
      '2024-12-31T20:59:59Z',
      '2024-12-31T00:00:00Z',
      '2024-12-31T14:30:00Z',
      '2024-12-31T21:00:00Z',
    ],
    [
      'year end',
      '1w',
      '2024-12-31T20:59:59Z',
      '2024-12-30T00:00:00Z',
      '2024-12-30T14:30:00Z',
      '2025-01-03T21:00:00Z',
    ],
    [
      'year end',
      '1mo',
      '2024-12-31T20:59:59Z',
      '2024-12-02T00:00:00Z',
      '2024-12-02T14:30:00Z',
      '2024-12-31T21:00:00Z',
    ],
    [
      'year end',
      '1q',
      '2024-12-31T20:59:59Z',
      '2024-10-01T00:00:00Z',
      '2024-10-01T13:30:00Z',
      '2024-12-31T21:00:00Z',
    ],
    [
      'year end',
      '1y',
      '2024-12-31T20:59:59Z',
      '2024-01-02T00:00:00Z',
      '2024-01-02T14:30:00Z',
      '2024-12-31T21:00:00Z',
    ],
    [
      'new year',
      '1d',
      '2025-01-02T14:30:00Z',
      '2025-01-02T00:00:00Z',
      '2025-01-02T14:30:00Z',
      '2025-01-02T21:00:00Z',
    ],
    [
      'new year',
      '1w',
      '2025-01-02T14:30:00Z',
      '2024-12-30T00:00:00Z',
      '2024-12-30T14:30:00Z',
      '2025-01-03T21:00:00Z',
    ],
    [
      'new year',
      '1mo',
      '2025-01-02T14:30:00Z',
      '2025-01-02T00:00:00Z',
      '2025-01-02T14:30:00Z',
      '2025-01-31T21:00:00Z',
    ],
    [
      'new year',
      '1q',
      '2025-01-02T14:30:00Z',
      '2025-01-02T00:00:00Z',
      '2025-01-02T14:30:00Z',
      '2025-03-31T20:00:00Z',
    ],
    [
      'new year',
      '1y',
      '2025-01-02T14:30:00Z',
      '2025-01-02T00:00:00Z',
      '2025-01-02T14:30:00Z',
      '2025-12-31T21:00:00Z',
    ],
    [
      'quarter end (Good Friday 2024-03-29)',
      '1q',
      '2024-03-28T19:59:59Z',
      '2024-01-02T00:00:00Z',
      '2024-01-02T14:30:00Z',
      '2024-03-28T20:00:00Z',
    ],
    [
      'quarter start',
      '1q',
      '2024-04-01T13:30:00Z',
      '2024-04-01T00:00:00Z',
      '2024-04-01T13:30:00Z',
      '2024-06-28T20:00:00Z',
    ],
    [
      'quarter start, July 4 week',
      '1q',
      '2024-07-05T15:00:00Z',
      '2024-07-01T00:00:00Z',
      '2024-07-01T13:30:00Z',
      '2024-09-30T20:00:00Z',
    ],
    // Weeks with a holiday.
    [
      'MLK week (Monday holiday)',
      '1w',
      '2024-01-17T15:00:00Z',
      '2024-01-16T00:00:00Z',
      '2024-01-16T14:30:00Z',
      '2024-01-19T21:00:00Z',
    ],
    [
      'Good Friday week',
      '1w',
      '2024-03-25T15:00:00Z',
      '2024-03-25T00:00:00Z',
      '2024-03-25T13:30:00Z',
      '2024-03-28T20:00:00Z',
    ],
    [
      'July 4 week',
      '1w',
      '2024-07-05T15:00:00Z',
      '2024-07-01T00:00:00Z',
      '2024-07-01T13:30:00Z',
      '2024-07-05T20:00:00Z',
    ],
    [
      'July 3 early close',
      '1d',
      '2024-07-03T16:59:59Z',
      '2024-07-03T00:00:00Z',
      '2024-07-03T13:30:00Z',
      '2024-07-03T17:00:00Z',
    ],
    [
      'July 3 early close',
      '4h',
      '2024-07-03T16:59:59Z',
      '2024-07-03T13:30:00Z',
      '2024-07-03T13:30:00Z',
      '2024-07-03T17:00:00Z',
    ],
    [
      'July 3 early close',
      '60m',
      '2024-07-03T16:59:59Z',
      '2024-07-03T16:30:00Z',
      '2024-07-03T16:30:00Z',
      '2024-07-03T17:00:00Z',
    ],
    [
      'September 2001 (Monday only)',
      '1w',
      '2001-09-10T15:00:00Z',
      '2001-09-10T00:00:00Z',
      '2001-09-10T13:30:00Z',
      '2001-09-10T20:00:00Z',
    ],
    // The example of docs/candles.md#daily-and-longer-periods: the week of 30 Sep - 4 Oct 2024, across a
    // month and quarter boundary.
    [
      'week of 30 Sep 2024',
      '1w',
      '2024-10-04T19:59:59Z',
      '2024-09-30T00:00:00Z',
      '2024-09-30T13:30:00Z',
      '2024-10-04T20:00:00Z',
    ],
    [
      'week of 30 Sep 2024',
      '1mo',
      '2024-10-04T19:59:59Z',
      '2024-10-01T00:00:00Z',
      '2024-10-01T13:30:00Z',
      '2024-10-31T20:00:00Z',
    ],
    // Months starting on a weekend or holiday.
    [
      'January 2024 (1st a holiday)',
      '1mo',
      '2024-01-31T15:00:00Z',
      '2024-01-02T00:00:00Z',
      '2024-01-02T14:30:00Z',
      '2024-01-31T21:00:00Z',
    ],
    [
      'June 2024 (1st a Saturday)',
      '1mo',
      '2024-06-03T13:30:00Z',
      '2024-06-03T00:00:00Z',
      '2024-06-03T13:30:00Z',
      '2024-06-28T20:00:00Z',
    ],
    [
      'September 2024 (Sunday, Labor Day)',
      '1mo',
      '2024-09-30T19:00:00Z',
      '2024-09-03T00:00:00Z',
      '2024-09-03T13:30:00Z',
      '2024-09-30T20:00:00Z',
    ],
  ])('%s: %s at %s -> bar time %s, [%s, %s)', (_label, interval, instant, time, start, end) => {
    expect(shown(periodAt(interval, ms(instant)))).toEqual([time, start, end]);
  });

  it('returns the interval and whole-second bar times', () => {
    for (const interval of INTERVALS) {
      const period = requirePeriod(periodAt(interval, ms('2024-05-15T17:47:12.345Z')));
      expect(period.interval).toBe(interval);
      expect(Number.isInteger(period.time)).toBe(true);
    }
  });
});

describe('periodAt: session bounds', () => {
  it.each(INTERVALS)('%s: inside exactly at the open, outside exactly at the close', (interval) => {
    const open = ms('2024-05-15T13:30:00Z');
    const close = ms('2024-05-15T20:00:00Z');
    const first = requirePeriod(periodAt(interval, open));
    const last = requirePeriod(periodAt(interval, close - 1));
    if (isIntraday(interval) || interval === '1d') {
      expect(first.startMs).toBe(open);
      expect(last.endMs).toBe(close);
    } else {
      expect(first).toBe(last);
    }
    expect(periodAt(interval, open - 1)).toBeUndefined();
    expect(periodAt(interval, close)).toBeUndefined();
  });

  it.each([
    ['pre-market', '2024-05-15T12:00:00Z'],
    ['one ms before the open', '2024-05-15T13:29:59.999Z'],
    ['at the close', '2024-05-15T20:00:00Z'],
    ['after hours', '2024-05-15T22:00:00Z'],
    ['overnight (UTC midnight)', '2024-05-16T00:00:00Z'],
    ['after an early close', '2024-11-29T18:00:00Z'],
    ['Saturday', '2024-05-18T15:00:00Z'],
    ['Sunday', '2024-05-19T15:00:00Z'],
    ['Memorial Day', '2024-05-27T15:00:00Z'],
    ['Independence Day', '2024-07-04T15:00:00Z'],
    ['Carter day of mourning', '2025-01-09T15:00:00Z'],
  ])('%s (%s): no period of any interval', (_label, instant) => {
    for (const interval of INTERVALS) expect(periodAt(interval, ms(instant))).toBeUndefined();
  });

  it.each([
    ['NaN', Number.NaN],
    ['before 1990', ms('1989-12-31T15:00:00Z')],
    ['after 2099', ms('2100-01-04T15:00:00Z')],
  ])('is a RangeError for an instant outside the calendar (%s)', (_label, instant) => {
    expect(() => periodAt('1m', instant)).toThrow(RangeError);
    expect(() => currentPeriod('1mo', instant)).toThrow(RangeError);
  });

  it('is a RangeError for an unknown interval', () => {
    expect(() => periodAt('2h' as Interval, ms('2024-05-15T15:00:00Z'))).toThrow(RangeError);
  });
});

describe('sessionPeriods', () => {
  const starts = (interval: Interval, date: string) =>
    sessionPeriods(interval, requireSession(date)).map((p) => `${iso(p.startMs)}-${iso(p.endMs)}`);

  it.each([
    ['1m', '2024-05-15', 390],
    ['15m', '2024-05-15', 26],
    ['30m', '2024-05-15', 13],
    ['60m', '2024-05-15', 7],
    ['4h', '2024-05-15', 2],
    ['1m', '2024-11-29', 210],
    ['15m', '2024-11-29', 14],
    ['30m', '2024-11-29', 7],
    ['60m', '2024-11-29', 4],
    ['4h', '2024-11-29', 1],
    ['1d', '2024-11-29', 1],
    ['1y', '2024-11-29', 1],
  ] as const)('%s on %s: %i periods', (interval, date, count) => {
    expect(sessionPeriods(interval, requireSession(date))).toHaveLength(count);
  });

  it('60m on a normal day: 09:30, 10:30 .. 15:30, the last lasting 30 minutes', () => {
    expect(starts('60m', '2024-05-15')).toEqual([
      '2024-05-15T13:30:00Z-2024-05-15T14:30:00Z',
      '2024-05-15T14:30:00Z-2024-05-15T15:30:00Z',
      '2024-05-15T15:30:00Z-2024-05-15T16:30:00Z',
      '2024-05-15T16:30:00Z-2024-05-15T17:30:00Z',
      '2024-05-15T17:30:00Z-2024-05-15T18:30:00Z',
      '2024-05-15T18:30:00Z-2024-05-15T19:30:00Z',
      '2024-05-15T19:30:00Z-2024-05-15T20:00:00Z',
    ]);
  });

  it('early close 2024-11-29: 60m ends 12:30-13:00, 4h is 09:30-13:00, 30m and 15m are cut at 13:00', () => {
    expect(starts('60m', '2024-11-29').at(-1)).toBe('2024-11-29T17:30:00Z-2024-11-29T18:00:00Z');
    expect(starts('4h', '2024-11-29')).toEqual(['2024-11-29T14:30:00Z-2024-11-29T18:00:00Z']);
    expect(starts('30m', '2024-11-29').at(-1)).toBe('2024-11-29T17:30:00Z-2024-11-29T18:00:00Z');
    expect(starts('15m', '2024-11-29').at(-1)).toBe('2024-11-29T17:45:00Z-2024-11-29T18:00:00Z');
    expect(starts('4h', '2024-05-15')).toEqual([
      '2024-05-15T13:30:00Z-2024-05-15T17:30:00Z',
      '2024-05-15T17:30:00Z-2024-05-15T20:00:00Z',
    ]);
  });
});

describe('currentPeriod', () => {
  type CurrentRow = [label: string, instant: string, expected: Partial<Record<Interval, string>>];
  it.each<CurrentRow>([
    [
      'a Saturday mid-month',
      '2024-06-15T15:00:00Z',
      { '1mo': '2024-06-03T00:00:00Z', '1q': '2024-04-01T00:00:00Z', '1y': '2024-01-02T00:00:00Z' },
    ],
    [
      'a Saturday after the last session of May (Friday 2024-05-31), before June first opens',
      '2024-06-01T15:00:00Z',
      { '1q': '2024-04-01T00:00:00Z', '1y': '2024-01-02T00:00:00Z' },
    ],
    [
      'a Saturday after the last session of Q2 (Friday 2024-06-28)',
      '2024-06-29T15:00:00Z',
      { '1y': '2024-01-02T00:00:00Z' },
    ],
    [
      'Friday evening after the close',
      '2024-06-14T21:00:00Z',
      { '1mo': '2024-06-03T00:00:00Z', '1q': '2024-04-01T00:00:00Z', '1y': '2024-01-02T00:00:00Z' },
    ],
    [
      'a weekday night: the week still runs',
      '2024-06-12T23:00:00Z',
      {
        '1w': '2024-06-10T00:00:00Z',
        '1mo': '2024-06-03T00:00:00Z',
        '1q': '2024-04-01T00:00:00Z',
        '1y': '2024-01-02T00:00:00Z',
      },
    ],
    [
      'Monday before the open of the month and week',
      '2024-06-03T13:29:59Z',
      { '1q': '2024-04-01T00:00:00Z', '1y': '2024-01-02T00:00:00Z' },
    ],
    [
      'the MLK holiday: the week has not begun',
      '2024-01-15T15:00:00Z',
      { '1mo': '2024-01-02T00:00:00Z', '1q': '2024-01-02T00:00:00Z', '1y': '2024-01-02T00:00:00Z' },
    ],
    ['New Year’s Day 2024 (no period of 2024 has begun)', '2024-01-01T15:00:00Z', {}],
    [
      'in a session: every interval',
      '2024-06-12T15:00:00Z',
      {
        '1m': '2024-06-12T15:00:00Z',
        '15m': '2024-06-12T15:00:00Z',
        '30m': '2024-06-12T15:00:00Z',
        '60m': '2024-06-12T14:30:00Z',
        '4h': '2024-06-12T13:30:00Z',
        '1d': '2024-06-12T00:00:00Z',
        '1w': '2024-06-10T00:00:00Z',
        '1mo': '2024-06-03T00:00:00Z',
        '1q': '2024-04-01T00:00:00Z',
        '1y': '2024-01-02T00:00:00Z',
      },
    ],
  ])('%s (%s)', (_label, instant, expected) => {
    const actual: Partial<Record<Interval, string>> = {};
    for (const interval of INTERVALS) {
      const period = currentPeriod(interval, ms(instant));
      if (period !== undefined) actual[interval] = iso(period.time * 1000);
    }
    expect(actual).toEqual(expected);
  });
});

describe('nextPeriod and previousPeriod', () => {
  const at = (interval: Interval, instant: string) => requirePeriod(periodAt(interval, ms(instant)));

  it.each<[label: string, interval: Interval, instant: string, next: string, previous: string]>([
    ['60m mid-session', '60m', '2024-05-15T15:00:00Z', '2024-05-15T15:30:00Z', '2024-05-15T13:30:00Z'],
    [
      '60m last of Friday -> Monday open',
      '60m',
      '2024-05-17T19:45:00Z',
      '2024-05-20T13:30:00Z',
      '2024-05-17T18:30:00Z',
    ],
    [
      '4h early close -> next Monday',
      '4h',
      '2024-11-29T15:00:00Z',
      '2024-12-02T14:30:00Z',
      '2024-11-27T18:30:00Z',
    ],
    ['1m first of the day', '1m', '2024-05-16T13:30:00Z', '2024-05-16T13:31:00Z', '2024-05-15T19:59:00Z'],
    ['1d over the weekend', '1d', '2024-05-17T15:00:00Z', '2024-05-20T00:00:00Z', '2024-05-16T00:00:00Z'],
    ['1d over a holiday', '1d', '2024-07-03T15:00:00Z', '2024-07-05T00:00:00Z', '2024-07-02T00:00:00Z'],
    ['1w to the MLK week', '1w', '2024-01-12T15:00:00Z', '2024-01-16T00:00:00Z', '2024-01-02T00:00:00Z'],
    ['1w from the MLK week', '1w', '2024-01-17T15:00:00Z', '2024-01-22T00:00:00Z', '2024-01-08T00:00:00Z'],
    ['1mo', '1mo', '2024-05-15T15:00:00Z', '2024-06-03T00:00:00Z', '2024-04-01T00:00:00Z'],
    ['1q', '1q', '2024-11-15T15:00:00Z', '2025-01-02T00:00:00Z', '2024-07-01T00:00:00Z'],
    ['1y', '1y', '2024-11-15T15:00:00Z', '2025-01-02T00:00:00Z', '2023-01-03T00:00:00Z'],
  ])('%s', (_label, interval, instant, next, previous) => {
    const period = at(interval, instant);
    expect(iso(requirePeriod(nextPeriod(period)).time * 1000)).toBe(next);
    expect(iso(requirePeriod(previousPeriod(period)).time * 1000)).toBe(previous);
  });

  it('ends at the edges of the calendar', () => {
    expect(previousPeriod(at('1y', '1990-06-01T15:00:00Z'))).toBeUndefined();
    expect(previousPeriod(at('1m', '1990-01-02T14:30:00Z'))).toBeUndefined();
    expect(nextPeriod(at('1y', '2099-06-01T15:00:00Z'))).toBeUndefined();
    expect(nextPeriod(at('1w', '2099-12-31T15:00:00Z'))).toBeUndefined();
  });
});

describe('calendarPeriodOfDay', () => {
  const day = (date: string) => ms(`${date}T00:00:00Z`) / 86_400_000;

  it('finds the period of a day without a session, or none', () => {
    expect(calendarPeriodOfDay('1d', day('2024-06-01'))).toBeUndefined();
    // The week of Memorial Day 2024-05-27 starts on Tuesday.
    expect(shown(calendarPeriodOfDay('1w', day('2024-06-01')))?.[0]).toBe('2024-05-28T00:00:00Z');
    expect(shown(calendarPeriodOfDay('1mo', day('2024-06-01')))?.[0]).toBe('2024-06-03T00:00:00Z');
  });

  it('is a RangeError outside the calendar', () => {
    expect(() => calendarPeriodOfDay('1d', day('1989-12-29'))).toThrow(RangeError);
  });
});

describe('properties', () => {
  const instants = fc.integer({ min: ms('2023-12-20T00:00:00Z'), max: ms('2025-01-15T00:00:00Z') });
  const NESTED: readonly Interval[][] = [
    ['1m', '15m', '30m', '60m', '4h', '1d', '1w'],
    ['1d', '1mo', '1q', '1y'],
  ];

  it('a period holds its instant, and periods nest (1m in 15m in 30m in 60m in 4h in 1d in 1w; 1d in 1mo in 1q in 1y)', () => {
    fc.assert(
      fc.property(instants, (instant) => {
        for (const interval of INTERVALS) {
          const period = periodAt(interval, instant);
          if (period === undefined) {
            expect(periodAt('1m', instant)).toBeUndefined();
            continue;
          }
          expect(period.startMs).toBeLessThanOrEqual(instant);
          expect(instant).toBeLessThan(period.endMs);
          expect(currentPeriod(interval, instant)).toEqual(period);
        }
        for (const chain of NESTED) {
          for (let i = 1; i < chain.length; i++) {
            const inner = periodAt(chain[i - 1] as Interval, instant);
            const outer = periodAt(chain[i] as Interval, instant);
            if (inner === undefined || outer === undefined) continue;
            expect(outer.startMs).toBeLessThanOrEqual(inner.startMs);
            expect(inner.endMs).toBeLessThanOrEqual(outer.endMs);
          }
        }
      }),
    );
  });

  it('currentPeriod, when defined, holds now', () => {
    fc.assert(
      fc.property(instants, fc.constantFrom(...INTERVALS), (instant, interval) => {
        const period = currentPeriod(interval, instant);
        if (period !== undefined) {
          expect(period.startMs).toBeLessThanOrEqual(instant);
          expect(instant).toBeLessThan(period.endMs);
        }
      }),
    );
  });

  it('nextPeriod and previousPeriod walk adjacent periods, each found again by periodAt', () => {
    fc.assert(
      fc.property(instants, fc.constantFrom(...INTERVALS), (instant, interval) => {
        const period = periodAt(interval, instant);
        if (period === undefined) return;
        const next = requirePeriod(nextPeriod(period));
        const previous = requirePeriod(previousPeriod(period));
        expect(next.startMs).toBeGreaterThanOrEqual(period.endMs);
        expect(previous.endMs).toBeLessThanOrEqual(period.startMs);
        expect(periodAt(interval, next.startMs)).toEqual(next);
        expect(periodAt(interval, next.endMs - 1)).toEqual(next);
        expect(periodAt(interval, previous.startMs)).toEqual(previous);
        expect(previousPeriod(next)).toEqual(period);
        expect(nextPeriod(previous)).toEqual(period);
        // Nothing of the interval trades in between: the gap holds no session (intraday) or no period.
        if (next.startMs > period.endMs) expect(periodAt('1m', period.endMs)).toBeUndefined();
      }),
    );
  });
});
