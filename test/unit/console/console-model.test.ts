import { describe, expect, it } from 'vitest';
import {
  feedIndex,
  formatPrice,
  matchInstruments,
  ServiceClock,
} from '../../../console/src/console-model.ts';

describe('formatPrice: to the instrument tick', () => {
  it.each([
    [182, 'AAPL', '182.00'],
    [590.8123, 'SPY', '590.81'],
    [0.4567, 'XYZ', '0.4567'],
    [5225, 'ES1!', '5,225.00'],
    [5225.25, 'NQ1!', '5,225.25'],
    [2050.1, 'RTY1!', '2,050.1'],
    [41800, 'YM1!', '41,800'],
    [null, 'AAPL', '–'],
  ])('shows %s of %s as %s', (value, symbol, shown) => {
    expect(formatPrice(value, symbol)).toBe(shown);
  });
});

describe('matchInstruments: the search over the listing', () => {
  const listing = [
    { symbol: 'AAPL', name: 'Apple Inc.' },
    { symbol: 'APA', name: 'APA Corporation' },
    { symbol: 'MSFT', name: 'Microsoft Corporation' },
    { symbol: 'PAAS', name: 'Pan American Silver' },
  ];

  it('finds by name, case-insensitive: "apple" finds AAPL', () => {
    expect(matchInstruments(listing, 'apple', 10).map(({ symbol }) => symbol)).toEqual(['AAPL']);
    expect(matchInstruments(listing, 'CORPORATION', 10).map(({ symbol }) => symbol)).toEqual(['APA', 'MSFT']);
  });

  it('puts symbol matches before name matches, an exact symbol first', () => {
    expect(matchInstruments(listing, 'apa', 10).map(({ symbol }) => symbol)).toEqual(['APA']);
    expect(matchInstruments(listing, 'pa', 10).map(({ symbol }) => symbol)).toEqual(['PAAS', 'APA']);
    expect(matchInstruments(listing, '', 2)).toHaveLength(2);
  });
});

describe('feedIndex: newest first by the time it fired', () => {
  it('places an entry by its time, not its id', () => {
    const feed = [
      { firedAt: '2024-11-22T15:10:00Z', id: 1 },
      { firedAt: '2024-11-22T14:40:00Z', id: 2 },
    ];
    expect(feedIndex(feed, { firedAt: '2024-11-22T15:00:00Z', id: 3 })).toBe(1);
    expect(feedIndex(feed, { firedAt: '2024-11-22T15:20:00Z', id: 0 })).toBe(0);
    expect(feedIndex(feed, { firedAt: '2024-11-22T14:00:00Z', id: 9 })).toBe(2);
  });
});

describe('ServiceClock', () => {
  it('ticks between readings, at the rate the service clock ran', () => {
    const clock = new ServiceClock();
    expect(clock.now(0)).toBeUndefined();
    clock.read('2024-11-22T16:00:00Z', 0);
    expect(clock.now(1000)?.toISOString()).toBe('2024-11-22T16:00:01.000Z');
    clock.read('2024-11-22T16:01:00Z', 1000); // a clock 60 times as fast
    expect(clock.now(2000)?.toISOString()).toBe('2024-11-22T16:02:00.000Z');
  });
});
