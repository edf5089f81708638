import { describe, expect, it } from 'vitest';
import { deriveBars } from '#domain/market-data/bar-history';
import type { Bar } from '#domain/market-data/bars';
import { periodAt } from '#domain/market-data/periods';

const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`) / 1000;
const at = (iso: string) => Date.parse(iso) / 1000;
const d = (date: string, open: number, high: number, low: number, close: number, volume: number): Bar => ({
  time: day(date),
  open,
  high,
  low,
  close,
  volume,
});
const m = (iso: string, open: number, high: number, low: number, close: number, volume: number): Bar => ({
  time: at(iso),
  open,
  high,
  low,
  close,
  volume,
});
/** Only the bar's values (the period bounds are checked apart). */
const values = (bars: readonly Bar[]) =>
  bars.map(({ time, open, high, low, close, volume }) => ({ time, open, high, low, close, volume }));

describe('deriveBars from daily bars', () => {
  it('makes a week of the sessions of Monday to Friday, Thanksgiving missing, ending at the early close', () => {
    const week = deriveBars('1w', '1d', [
      d('2024-11-22', 9, 10, 8, 9.5, 1),
      d('2024-11-25', 10, 11, 9, 10.5, 100),
      d('2024-11-26', 10.5, 12, 10, 11, 200),
      d('2024-11-27', 11, 11.5, 8.5, 9, 300),
      d('2024-11-29', 9, 10, 8.8, 9.8, 50),
      d('2024-12-02', 9.8, 10.2, 9.7, 10, 10),
    ]);
    expect(values(week)).toEqual([
      d('2024-11-18', 9, 10, 8, 9.5, 1),
      d('2024-11-25', 10, 12, 8.5, 9.8, 650),
      d('2024-12-02', 9.8, 10.2, 9.7, 10, 10),
    ]);
    expect(week[1]?.startMs).toBe(Date.parse('2024-11-25T14:30:00Z'));
    expect(week[1]?.endMs).toBe(Date.parse('2024-11-29T18:00:00Z'));
  });

  it('dates a week whose Monday is a holiday by its first session (Tuesday)', () => {
    const week = deriveBars('1w', '1d', [
      d('2025-01-21', 10, 11, 9, 10, 5),
      d('2025-01-24', 10, 12, 10, 12, 7),
    ]);
    expect(values(week)).toEqual([d('2025-01-21', 10, 12, 9, 12, 12)]);
  });

  it('keeps a week across the year end in one bar dated by its Monday, while the years split', () => {
    const bars = [
      d('2025-12-29', 10, 11, 9, 10, 1),
      d('2025-12-30', 10, 12, 10, 11, 2),
      d('2025-12-31', 11, 11, 9.5, 10, 4),
      d('2026-01-02', 10, 13, 10, 12.5, 8),
    ];
    expect(values(deriveBars('1w', '1d', bars))).toEqual([d('2025-12-29', 10, 13, 9, 12.5, 15)]);
    expect(values(deriveBars('1y', '1d', bars))).toEqual([
      d('2025-01-02', 10, 12, 9, 10, 7),
      d('2026-01-02', 10, 13, 10, 12.5, 8),
    ]);
  });

  it('makes quarters of January, April, July and October, each dated by its first session', () => {
    const quarters = deriveBars('1q', '1d', [
      d('2025-01-02', 10, 11, 9, 10, 1),
      d('2025-03-31', 10, 15, 10, 14, 2),
      d('2025-04-01', 14, 14, 12, 13, 3),
      d('2025-06-30', 13, 13.5, 12.5, 13, 4),
      d('2025-07-01', 13, 16, 13, 16, 5),
      d('2025-10-01', 16, 17, 15, 15.5, 6),
      d('2025-12-31', 15.5, 18, 15, 17, 7),
    ]);
    expect(values(quarters)).toEqual([
      d('2025-01-02', 10, 15, 9, 14, 3),
      d('2025-04-01', 14, 14, 12, 13, 7),
      d('2025-07-01', 13, 16, 13, 16, 5),
      d('2025-10-01', 16, 18, 15, 17, 13),
    ]);
  });

  it('dates a month and a year by the calendar, not by the file: a year whose file lacks its first day', () => {
    // 2024-01-02 and 2024-07-01 are the calendar's first sessions of the year and of July; the file lacks them.
    const bars = [
      d('2024-01-03', 20, 21, 19, 20.5, 10),
      d('2024-06-28', 20.5, 25, 20, 24, 20),
      d('2024-07-02', 24, 24.5, 22, 23, 30),
      d('2024-12-31', 23, 23.5, 18, 19, 40),
    ];
    expect(values(deriveBars('1y', '1d', bars))).toEqual([d('2024-01-02', 20, 25, 18, 19, 100)]);
    expect(values(deriveBars('1mo', '1d', bars))).toEqual([
      d('2024-01-02', 20, 21, 19, 20.5, 10),
      d('2024-06-03', 20.5, 25, 20, 24, 20),
      d('2024-07-01', 24, 24.5, 22, 23, 30),
      d('2024-12-02', 23, 23.5, 18, 19, 40),
    ]);
  });
});

describe('deriveBars from minute bars', () => {
  const bars = [
    m('2024-11-29T14:30:00Z', 100, 101, 99, 100.5, 10),
    m('2024-11-29T14:44:00Z', 100.5, 102, 100, 101, 20),
    m('2024-11-29T14:45:00Z', 101, 101.5, 98, 99, 30),
    m('2024-11-29T17:30:00Z', 99, 99.5, 97, 98, 40),
    m('2024-11-29T17:59:00Z', 98, 98.2, 97.5, 98.1, 50),
  ];

  it('steps 15m periods from the open', () => {
    expect(values(deriveBars('15m', '1m', bars))).toEqual([
      m('2024-11-29T14:30:00Z', 100, 102, 99, 101, 30),
      m('2024-11-29T14:45:00Z', 101, 101.5, 98, 99, 30),
      m('2024-11-29T17:30:00Z', 99, 99.5, 97, 98, 40),
      m('2024-11-29T17:45:00Z', 98, 98.2, 97.5, 98.1, 50),
    ]);
  });

  it('cuts the last 60m period and the one 4h period at an early close (13:00)', () => {
    const hours = deriveBars('60m', '1m', bars);
    expect(values(hours).map(({ time }) => time)).toEqual([
      at('2024-11-29T14:30:00Z'),
      at('2024-11-29T17:30:00Z'),
    ]);
    expect(hours[1]?.endMs).toBe(Date.parse('2024-11-29T18:00:00Z'));
    const fourHours = deriveBars('4h', '1m', bars);
    expect(values(fourHours)).toEqual([m('2024-11-29T14:30:00Z', 100, 102, 97, 98.1, 150)]);
    expect(fourHours[0]?.endMs).toBe(Date.parse('2024-11-29T18:00:00Z'));
  });

  it('makes the session bar dated 00:00 UTC of its date, and uses the live anchoring for every bar', () => {
    expect(values(deriveBars('1d', '1m', bars))).toEqual([d('2024-11-29', 100, 102, 97, 98.1, 150)]);
    for (const interval of ['15m', '30m', '60m', '4h', '1d', '1w', '1mo', '1q', '1y'] as const) {
      for (const bar of deriveBars(interval, '1m', bars)) {
        const live = periodAt(interval, bar.startMs);
        expect([bar.time, bar.startMs, bar.endMs]).toEqual([live?.time, live?.startMs, live?.endMs]);
      }
    }
  });
});
