import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type CandlesQuery,
  getCandles,
  isPartial,
  normalizeInterval,
  parseInstant,
  periodOfBar,
} from '#domain/market-data/candles';
import { INTERVALS } from '#domain/market-data/intervals';
import { InvalidParameterError, UnknownIntervalError, UnknownSymbolError } from '#domain/requests/errors';
import { bar, instrument } from '../../../support/builders.ts';
import { InMemoryBarStore, InMemoryInstrumentCatalog, InMemoryLedgerStore } from '../../../support/fakes.ts';

const seconds = (iso: string) => Date.parse(iso) / 1000;

describe('parseInstant', () => {
  it.each([
    ['2024-01-05', '2024-01-05T00:00:00.000Z'],
    ['2024-01-05T10:30:00Z', '2024-01-05T10:30:00.000Z'],
    ['2024-01-05T10:30:00.250Z', '2024-01-05T10:30:00.250Z'],
    ['2024-01-05T10:30Z', '2024-01-05T10:30:00.000Z'],
    ['2024-01-05T10:30:00-05:00', '2024-01-05T15:30:00.000Z'],
    ['2024-01-05T10:30:00+0100', '2024-01-05T09:30:00.000Z'],
    ['2024-01-05T10:30:00', '2024-01-05T10:30:00.000Z'],
  ])('reads %s as %s', (raw, iso) => {
    expect(parseInstant(raw)).toBe(Date.parse(iso));
  });

  it.each([
    '2024-13-01',
    '2024-02-30',
    '2023-02-29',
    'yesterday',
    '1704067200',
    '2024-1-5',
    '2024-01-05T25:00:00Z',
    '',
  ])('refuses %j', (raw) => {
    expect(parseInstant(raw)).toBeUndefined();
  });
});

describe('normalizeInterval', () => {
  it('defaults to 1d', () => {
    expect(normalizeInterval(undefined)).toBe('1d');
  });

  it.each([...INTERVALS])('accepts %s', (interval) => {
    expect(normalizeInterval(interval)).toBe(interval);
  });

  it.each([
    ['1D', '1d'],
    ['4H', '4h'],
    ['1MO', '1mo'],
  ])('matches %s case-insensitively as %s', (raw, interval) => {
    expect(normalizeInterval(raw)).toBe(interval);
  });

  it.each(['2m', '1h', 'day', 'D', '60'])('refuses %s as an unknown interval', (raw) => {
    expect(() => normalizeInterval(raw)).toThrow(UnknownIntervalError);
  });
});

describe('periodOfBar and isPartial', () => {
  const friday = seconds('2024-11-29T00:00:00Z');

  it('finds the early-close session of a daily bar from its bar time', () => {
    const period = periodOfBar('1d', friday);
    expect(period?.startMs).toBe(Date.parse('2024-11-29T14:30:00Z'));
    expect(period?.endMs).toBe(Date.parse('2024-11-29T18:00:00Z'));
  });

  it.each([
    ['1d', '2024-11-29T15:00:00Z', true],
    ['1d', '2024-11-29T18:00:00Z', false],
    ['1w', '2024-11-29T17:59:59Z', true],
    ['1d', '2024-11-29T14:29:59Z', false],
    ['1m', '2024-11-29T15:00:30Z', false],
  ] as const)('a %s bar of 2024-11-29 is partial at %s: %s', (interval, now, expected) => {
    const time =
      interval === '1m'
        ? seconds('2024-11-29T15:00:00Z')
        : interval === '1w'
          ? seconds('2024-11-25T00:00:00Z')
          : friday;
    expect(isPartial(interval, bar(time, 1), Date.parse(now))).toBe(expected);
  });

  it('is false for a month bar on the Saturday after the month closed early, the market being shut', () => {
    expect(
      isPartial('1mo', bar(seconds('2024-11-01T00:00:00Z'), 1), Date.parse('2024-11-30T15:00:00Z')),
    ).toBe(false);
  });
});

describe('getCandles', () => {
  const instruments = new InMemoryInstrumentCatalog([instrument('AAPL')]);
  const bars = new InMemoryBarStore();
  const ledgers = new InMemoryLedgerStore();
  const days = ['2024-11-25', '2024-11-26', '2024-11-27'].map((day) => seconds(`${day}T00:00:00Z`));
  const forming = {
    ...bar(friday(), 104),
    startMs: Date.parse('2024-11-29T14:30:00Z'),
    endMs: Date.parse('2024-11-29T18:00:00Z'),
  };
  function friday() {
    return seconds('2024-11-29T00:00:00Z');
  }
  const ports = { instruments, bars, ledgers, nowMs: () => Date.parse('2024-11-29T15:00:00Z') };
  const query = (overrides: Partial<CandlesQuery> = {}): CandlesQuery => ({
    interval: undefined,
    start: undefined,
    end: undefined,
    limit: 500,
    ...overrides,
  });

  it('joins stored bars and the ledger bar, oldest first, partial while the session runs', async () => {
    await bars.putMany(
      days.map((time, index) => ({ symbol: 'AAPL', interval: '1d', bar: bar(time, 100 + index) })),
    );
    await ledgers.put({ symbol: 'AAPL', forming: { '1d': forming } }, undefined);

    const candles = await getCandles('AAPL', query(), ports);

    expect(candles.symbol).toBe('AAPL');
    expect(candles.interval).toBe('1d');
    expect(candles.bars.map(({ time }) => time)).toEqual([...days, friday()]);
    expect(candles.bars.at(-1)).toEqual(bar(friday(), 104));
    expect(candles.partial_bar_included).toBe(true);
  });

  it('keeps the most recent `limit` bars', async () => {
    const candles = await getCandles('AAPL', query({ limit: 2 }), ports);
    expect(candles.bars.map(({ time }) => time)).toEqual([days[2], friday()]);
  });

  it('applies start and end inclusively on bar time; the ledger bar outside them is left out', async () => {
    const candles = await getCandles(
      'AAPL',
      query({ start: Date.parse('2024-11-26'), end: Date.parse('2024-11-27') }),
      ports,
    );
    expect(candles.bars.map(({ time }) => time)).toEqual([days[1], days[2]]);
    expect(candles.partial_bar_included).toBe(false);
  });

  it('refuses a start after end as invalid_parameter', async () => {
    const reversed = query({ start: Date.parse('2025-01-02'), end: Date.parse('2024-01-01') });
    await expect(getCandles('AAPL', reversed, ports)).rejects.toThrow(
      new InvalidParameterError('start', 'must not be after end'),
    );
  });

  it('answers the bar at an instant when start equals end, and none inside one second', async () => {
    const at = Date.parse('2024-11-26');
    const same = await getCandles('AAPL', query({ start: at, end: at }), ports);
    expect(same.bars.map(({ time }) => time)).toEqual([days[1]]);
    const within = await getCandles('AAPL', query({ start: at + 100, end: at + 900 }), ports);
    expect(within.bars).toEqual([]);
  });

  it('answers an empty list, reading nothing, for an end before 1970 without a start', async () => {
    for (const end of [Date.parse('1969-12-31'), -1, Date.parse('0001-01-01')]) {
      const candles = await getCandles('AAPL', query({ end }), ports);
      expect(candles.bars).toEqual([]);
    }
  });

  it('never asks the store for a range whose lower bound is above its upper bound', async () => {
    const instant = fc.integer({ min: Date.parse('0001-01-01'), max: Date.parse('9999-12-31') });
    await fc.assert(
      fc.asyncProperty(fc.option(instant), fc.option(instant), async (start, end) => {
        const range = query({ start: start ?? undefined, end: end ?? undefined });
        if (start !== null && end !== null && start > end) return;
        const candles = await getCandles('AAPL', range, ports);
        for (const { time } of candles.bars) {
          if (start !== null) expect(time * 1000).toBeGreaterThanOrEqual(start);
          if (end !== null) expect(time * 1000).toBeLessThanOrEqual(end);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('answers an empty list for a tracked symbol with no bars', async () => {
    await instruments.putAll([instrument('MSFT')]);
    expect(await getCandles('MSFT', query({ interval: '1w' }), ports)).toEqual({
      symbol: 'MSFT',
      interval: '1w',
      bars: [],
      partial_bar_included: false,
    });
  });

  it('throws unknown_symbol for an untracked symbol and unknown_interval before any read', async () => {
    await expect(getCandles('NOPE', query(), ports)).rejects.toBeInstanceOf(UnknownSymbolError);
    await expect(getCandles('NOPE', query({ interval: '7m' }), ports)).rejects.toBeInstanceOf(
      UnknownIntervalError,
    );
  });
});
