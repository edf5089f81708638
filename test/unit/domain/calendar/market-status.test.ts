import { describe, expect, it } from 'vitest';
import { type MarketStatus, marketStatus } from '#domain/calendar/market-status';

const at = (iso: string): Date => new Date(iso);

const CLOSED_SESSION = { label: '', session_date: '', open_ts: '', close_ts: '' };

describe('marketStatus', () => {
  it('reports an open market mid-session with the whole session', () => {
    const expected: MarketStatus = {
      market: 'stocks',
      timezone: 'America/New_York',
      is_open: true,
      session: {
        label: 'RTH',
        session_date: '2024-11-27',
        open_ts: '2024-11-27T09:30:00-05:00',
        close_ts: '2024-11-27T16:00:00-05:00',
      },
      now: '2024-11-27T11:00:00-05:00',
    };
    expect(marketStatus(at('2024-11-27T16:00:00Z'))).toEqual(expected);
  });

  it('reports a closed market with every session string empty', () => {
    const expected: MarketStatus = {
      market: 'stocks',
      timezone: 'America/New_York',
      is_open: false,
      session: CLOSED_SESSION,
      now: '2024-11-30T11:00:00-05:00',
    };
    expect(marketStatus(at('2024-11-30T16:00:00Z'))).toEqual(expected);
  });

  it.each([
    ['exactly at the open', '2024-07-01T13:30:00Z', '2024-07-01', '-04:00'],
    ['mid-session in summer', '2024-07-01T17:45:00Z', '2024-07-01', '-04:00'],
    ['one second before the close', '2024-07-01T19:59:59Z', '2024-07-01', '-04:00'],
    ['on the Monday after the spring change', '2024-03-11T13:30:00Z', '2024-03-11', '-04:00'],
    ['on the Friday before the spring change', '2024-03-08T14:30:00Z', '2024-03-08', '-05:00'],
    ['on the Monday after the autumn change', '2024-11-04T14:30:00Z', '2024-11-04', '-05:00'],
  ])('is open %s (%s)', (_label, iso, date, offset) => {
    const status = marketStatus(at(iso));
    expect(status.is_open).toBe(true);
    expect(status.session.label).toBe('RTH');
    expect(status.session.session_date).toBe(date);
    expect(status.session.open_ts).toBe(`${date}T09:30:00${offset}`);
    expect(status.session.close_ts).toBe(`${date}T16:00:00${offset}`);
  });

  it.each([
    ['exactly at the close', '2024-07-01T20:00:00Z', '2024-07-01T16:00:00-04:00'],
    ['pre-market', '2024-07-01T12:00:00Z', '2024-07-01T08:00:00-04:00'],
    ['one second before the open', '2024-07-01T13:29:59Z', '2024-07-01T09:29:59-04:00'],
    ['after hours', '2024-07-01T22:30:00Z', '2024-07-01T18:30:00-04:00'],
    ['overnight', '2024-07-02T03:00:00Z', '2024-07-01T23:00:00-04:00'],
    ['on a Saturday', '2024-11-30T16:00:00Z', '2024-11-30T11:00:00-05:00'],
    ['on a Sunday', '2024-12-01T16:00:00Z', '2024-12-01T11:00:00-05:00'],
    ['on Thanksgiving Day', '2024-11-28T16:00:00Z', '2024-11-28T11:00:00-05:00'],
    ['on Good Friday', '2024-03-29T15:00:00Z', '2024-03-29T11:00:00-04:00'],
    ['on a special closure (Carter mourning day)', '2025-01-09T16:00:00Z', '2025-01-09T11:00:00-05:00'],
    ['on an early-close afternoon', '2024-11-29T18:30:00Z', '2024-11-29T13:30:00-05:00'],
    ['exactly at an early close', '2024-11-29T18:00:00Z', '2024-11-29T13:00:00-05:00'],
  ])('is closed %s (%s)', (_label, iso, now) => {
    const status = marketStatus(at(iso));
    expect(status.is_open).toBe(false);
    expect(status.session).toEqual(CLOSED_SESSION);
    expect(status.now).toBe(now);
  });

  it('is open on an early-close morning with the 13:00 close', () => {
    const status = marketStatus(at('2024-11-29T15:00:00Z'));
    expect(status.is_open).toBe(true);
    expect(status.session).toEqual({
      label: 'RTH',
      session_date: '2024-11-29',
      open_ts: '2024-11-29T09:30:00-05:00',
      close_ts: '2024-11-29T13:00:00-05:00',
    });
    expect(status.now).toBe('2024-11-29T10:00:00-05:00');
  });

  it.each([
    ['just before the 2024 spring change', '2024-03-10T06:59:59Z', '2024-03-10T01:59:59-05:00'],
    ['at the 2024 spring change', '2024-03-10T07:00:00Z', '2024-03-10T03:00:00-04:00'],
    ['just before the 2024 autumn change', '2024-11-03T05:59:59Z', '2024-11-03T01:59:59-04:00'],
    ['at the 2024 autumn change', '2024-11-03T06:00:00Z', '2024-11-03T01:00:00-05:00'],
    ['with milliseconds, truncated to the second', '2024-07-01T14:00:00.999Z', '2024-07-01T10:00:00-04:00'],
  ])('states now in New York time %s', (_label, iso, now) => {
    expect(marketStatus(at(iso)).now).toBe(now);
  });

  it('hands out a fresh session object each time', () => {
    const first = marketStatus(at('2024-11-30T16:00:00Z'));
    first.session.label = 'changed';
    expect(marketStatus(at('2024-11-30T16:00:00Z')).session.label).toBe('');
  });

  it.each([['1989-12-29T15:00:00Z'], ['2100-01-04T15:00:00Z']])(
    'throws a RangeError outside the calendar range (%s)',
    (iso) => {
      expect(() => marketStatus(at(iso))).toThrow(RangeError);
    },
  );
});
