import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sessionOn } from '#domain/calendar/sessions';
import { newYorkWallTimeToUtc } from '#domain/calendar/time-zone';
import {
  type BandPrint,
  bandAround,
  bandHalfWidth,
  isDoubled,
  isInside,
  type LuldTier,
  luldTierOf,
  PriceBands,
  RUN_SPAN_MS,
  RUN_TO_REANCHOR,
  tradeAfterBand,
} from '#domain/feed/price-band';
import { letterConditionsEffect, numericConditionsEffect } from '#domain/feed/sale-conditions';

/** A full day (Wednesday) and an early close (the day after Thanksgiving, 13:00). */
const DAY = '2026-11-25';
const EARLY = '2026-11-27';
const at = (date: string, hours: number, minutes: number, seconds = 0) =>
  newYorkWallTimeToUtc(date, hours * 60 + minutes).getTime() + seconds * 1_000;
const session = (date: string) => {
  const found = sessionOn(date);
  if (found === undefined) throw new Error(`no session on ${date}`);
  return found;
};

const print = (price: number, timestamp: number, extra: Partial<BandPrint> = {}): BandPrint => ({
  symbol: 'AAPL',
  price,
  timestamp,
  counting: 'full',
  ...extra,
});

/** Bands for one Tier-1 stock, anchored by an opening print at `price` at 10:00 on DAY. */
function anchored(price: number, tier: LuldTier = 1) {
  const bands = new PriceBands(() => tier);
  expect(bands.check(print(price, at(DAY, 10, 0), { auction: 'open' }))).toEqual({
    kind: 'exempt',
    reason: 'auction',
  });
  return bands;
}

describe('the percentage parameters (the Plan, Appendix A)', () => {
  it.each([
    // tier, bracket price (the day's first reference), reference, doubled, half width
    [1, 100, 100, false, 5],
    [2, 100, 100, false, 10],
    [1, 3.01, 3.01, false, 0.1505],
    [2, 3.01, 3.01, false, 0.301],
    [1, 3, 3, false, 0.6],
    [2, 3, 3, false, 0.6],
    [1, 0.75, 0.75, false, 0.15],
    [2, 0.75, 0.75, false, 0.15],
    [1, 0.74, 0.74, false, 0.15],
    [2, 0.5, 0.5, false, 0.15],
    [1, 0.1, 0.1, false, 0.075],
    [1, 100, 100, true, 10],
    [2, 2, 2, true, 0.8],
    [1, 0.5, 0.5, true, 0.3],
    [1, 0.1, 0.1, true, 0.15],
  ] as const)(
    'tier %i, bracket $%d, reference $%d, doubled %s: ±%d',
    (tier, bracket, reference, doubled, half) => {
      expect(bandHalfWidth(tier, bracket, reference, doubled)).toBeCloseTo(half, 10);
    },
  );

  it('keeps the bracket of the day: a $3.01 stock that drifts to $2.90 keeps its 5%', () => {
    expect(bandHalfWidth(1, 3.01, 2.9, false)).toBeCloseTo(0.145, 10);
  });

  it('takes a print exactly on a band as inside, a cent beyond as outside; the lower band never below 0', () => {
    const band = bandAround(100, 5);
    expect(isInside(105, band)).toBe(true);
    expect(isInside(95, band)).toBe(true);
    expect(isInside(105.01, band)).toBe(false);
    expect(isInside(94.99, band)).toBe(false);
    expect(bandAround(0.1, 0.15).lower).toBe(0);
  });
});

describe('the doubling (Amendment 18: the last 25 minutes only)', () => {
  it.each([
    [1, 100, DAY, 9, 30, 0, false],
    [1, 100, DAY, 9, 44, 59, false],
    [1, 100, DAY, 15, 34, 59, false],
    [1, 100, DAY, 15, 35, 0, true],
    [1, 100, DAY, 15, 59, 59, true],
    [2, 100, DAY, 15, 50, 0, false],
    [2, 3, DAY, 15, 50, 0, true],
    [2, 0.5, DAY, 15, 50, 0, true],
    [2, 3, DAY, 9, 35, 0, false],
    [1, 100, EARLY, 12, 34, 59, false],
    [1, 100, EARLY, 12, 35, 0, true],
    [2, 100, EARLY, 12, 50, 0, false],
  ] as const)(
    'tier %i, bracket $%d, %s %i:%i:%i: doubled %s',
    (tier, bracket, date, hours, minutes, seconds, doubled) => {
      expect(isDoubled(tier, bracket, session(date), at(date, hours, minutes, seconds))).toBe(doubled);
    },
  );

  it('doubles the band a print is judged by in the last 25 minutes, before an early close too', () => {
    const bands = new PriceBands(() => 1);
    bands.check(print(100, at(EARLY, 12, 0), { auction: 'open' }));
    expect(bands.check(print(108, at(EARLY, 12, 34, 59))).kind).toBe('outside');
    expect(bands.check(print(108, at(EARLY, 12, 35)))).toMatchObject({
      kind: 'inside',
      band: { lower: 90, upper: 110 },
    });
  });
});

describe('the tier of a symbol', () => {
  const tier1 = new Set(['AAPL', 'SPY']);
  it('is 1 for a universe symbol, 2 for another stock, none for a future (CME has its own rules)', () => {
    expect(luldTierOf('AAPL', tier1)).toBe(1);
    expect(luldTierOf('SPY', tier1)).toBe(1);
    expect(luldTierOf('GME', tier1)).toBe(2);
    expect(luldTierOf('ES1!', tier1)).toBeUndefined();
  });

  it('leaves futures unbanded: a 10x print of ES1! is not judged', () => {
    const bands = new PriceBands((symbol) => luldTierOf(symbol, tier1));
    const future = (price: number, timestamp: number) => print(price, timestamp, { symbol: 'ES1!' });
    expect(bands.check(future(6000, at(DAY, 10, 0)))).toEqual({ kind: 'unbanded', reason: 'not-nms-stock' });
    expect(bands.check(future(60_000, at(DAY, 10, 6)))).toEqual({
      kind: 'unbanded',
      reason: 'not-nms-stock',
    });
  });
});

describe('the reference price', () => {
  it('is the opening print: a 10x print a second later is outside the band', () => {
    const bands = anchored(180);
    expect(bands.check(print(1800, at(DAY, 10, 0, 1)))).toEqual({
      kind: 'outside',
      band: { lower: 171, upper: 189 },
      reference: 180,
    });
    expect(bands.check(print(180.2, at(DAY, 10, 0, 2))).kind).toBe('inside');
  });

  it('without an opening print, is not invented: no band until the symbol has been watched five minutes', () => {
    const bands = new PriceBands(() => 1);
    const start = at(DAY, 11, 0); // a restart mid-session
    for (let second = 0; second < 300; second += 10) {
      expect(bands.check(print(100, start + second * 1_000))).toEqual({
        kind: 'unbanded',
        reason: 'no-reference',
      });
    }
    expect(bands.check(print(1000, start + 299_000))).toEqual({ kind: 'unbanded', reason: 'no-reference' });
    // Five minutes watched: the mean of the window (the 10x print included) becomes the reference.
    expect(bands.check(print(100, start + 300_000)).kind).toBe('unbanded');
    const verdict = bands.check(print(1000, start + 301_000));
    expect(verdict.kind).toBe('outside');
  });

  it('moves only when the five-minute mean moves 1% or more, and holds at least 30 s', () => {
    const bands = anchored(100);
    const t0 = at(DAY, 10, 0);
    // Prints at 100.9 for a minute: the mean stays under 1% away; the band stays around 100.
    for (let second = 31; second <= 90; second++) bands.check(print(100.9, t0 + second * 1_000));
    expect(bands.check(print(100.9, t0 + 91_000))).toMatchObject({ band: { lower: 95, upper: 105 } });
    // Prints at 102: once the mean is 1% away, the reference becomes the mean.
    let band = { lower: 95, upper: 105 };
    for (let second = 92; second <= 150; second++) {
      const verdict = bands.check(print(102, t0 + second * 1_000));
      if (verdict.kind === 'inside') band = verdict.band;
    }
    expect(band.upper).toBeGreaterThan(105);
    const moved = band.upper / 1.05;
    // The mean of the window when it moved: between 101 and 102.
    expect(moved).toBeGreaterThanOrEqual(101);
    expect(moved).toBeLessThan(102);
  });

  it('holds a new reference 30 s even when the mean runs on', () => {
    const bands = anchored(100);
    const t0 = at(DAY, 10, 0);
    // At +10 s the mean would have moved (100 and 104: 102), but the opening reference holds until +30 s.
    expect(bands.check(print(104, t0 + 10_000))).toMatchObject({ kind: 'inside', band: { upper: 105 } });
    expect(bands.check(print(104, t0 + 29_000))).toMatchObject({ kind: 'inside', band: { upper: 105 } });
    // At +30 s it moves to the mean (100, 104, 104, 104 = 103).
    bands.check(print(104, t0 + 30_000));
    expect(bands.check(print(104, t0 + 31_000))).toMatchObject({
      kind: 'inside',
      band: { upper: 103 * 1.05 },
    });
  });

  it('forgets prints older than five minutes', () => {
    const bands = anchored(100);
    const t0 = at(DAY, 10, 0);
    // A climb within the band; by +620 s only the 110s of +340 s and later are left in the window.
    for (const [price, second] of [
      [104, 60],
      [106, 200],
      [108, 250],
      [109, 301],
      [110, 340],
      [110, 620],
    ] as const) {
      expect(bands.check(print(price, t0 + second * 1_000)).kind).toBe('inside');
    }
    const verdict = bands.check(print(110, t0 + 621_000));
    expect(verdict.kind).toBe('inside');
    if (verdict.kind !== 'inside') return;
    expect((verdict.band.upper + verdict.band.lower) / 2).toBeCloseTo(110, 6);
  });

  it('does not take a print outside the band into the mean', () => {
    const bands = anchored(100);
    const t0 = at(DAY, 10, 0);
    bands.check(print(1000, t0 + 31_000));
    expect(bands.check(print(100, t0 + 32_000))).toMatchObject({
      kind: 'inside',
      band: { lower: 95, upper: 105 },
    });
  });

  it('starts afresh each session: yesterday’s reference does not judge today', () => {
    const bands = anchored(100);
    expect(bands.check(print(1000, at('2026-11-27', 10, 0)))).toEqual({
      kind: 'unbanded',
      reason: 'no-reference',
    });
  });

  it('does not let a late print of an earlier session reset today’s reference', () => {
    const bands = new PriceBands(() => 1);
    bands.check(print(100, at('2026-11-27', 10, 0), { auction: 'open' }));
    expect(bands.check(print(90, at(DAY, 15, 0), { counting: 'volume-only' }))).toEqual({
      kind: 'unbanded',
      reason: 'earlier-session',
    });
    expect(bands.check(print(1000, at('2026-11-27', 10, 1))).kind).toBe('outside');
  });

  it('is taken again after a reopening print (a trading pause)', () => {
    const bands = anchored(100);
    expect(bands.check(print(120, at(DAY, 10, 10), { auction: 'reopen' }))).toEqual({
      kind: 'exempt',
      reason: 'auction',
    });
    expect(bands.check(print(121, at(DAY, 10, 10, 1)))).toMatchObject({
      kind: 'inside',
      band: { upper: 126 },
    });
    expect(bands.check(print(100, at(DAY, 10, 10, 2))).kind).toBe('outside');
  });

  it('is taken again when prints keep coming outside it (a pause the feed did not carry)', () => {
    const bands = anchored(100);
    const t0 = at(DAY, 10, 15);
    const spacing = RUN_SPAN_MS / (RUN_TO_REANCHOR - 1);
    for (let n = 0; n < RUN_TO_REANCHOR - 1; n++) {
      expect(bands.check(print(120, t0 + n * spacing)).kind).toBe('outside');
    }
    expect(bands.check(print(120, t0 + RUN_SPAN_MS)).kind).toBe('inside');
    expect(bands.check(print(121, t0 + RUN_SPAN_MS + 1_000))).toMatchObject({
      kind: 'inside',
      band: { lower: 114, upper: 126 },
    });
  });

  it('keeps holding back a short burst of bad prints', () => {
    const bands = anchored(100);
    const t0 = at(DAY, 10, 15);
    for (let n = 0; n < RUN_TO_REANCHOR * 3; n++)
      expect(bands.check(print(1000, t0 + n * 100)).kind).toBe('outside');
    expect(bands.check(print(100, t0 + 5_000)).kind).toBe('inside');
  });
});

describe('exemptions', () => {
  it('exempts the closing auction print and prints that move no price; neither moves the reference', () => {
    const bands = anchored(100);
    const t0 = at(DAY, 10, 0);
    expect(bands.check(print(1000, t0 + 1_000, { counting: 'volume-only' }))).toEqual({
      kind: 'exempt',
      reason: 'moves-no-price',
    });
    expect(bands.check(print(130, at(DAY, 16, 0) - 1, { auction: 'close' }))).toEqual({
      kind: 'exempt',
      reason: 'auction',
    });
    expect(bands.check(print(100, t0 + 2_000))).toMatchObject({ kind: 'inside', band: { upper: 105 } });
  });

  it('has no band outside regular hours', () => {
    const bands = anchored(100);
    expect(bands.check(print(1000, at(DAY, 8, 0)))).toEqual({ kind: 'unbanded', reason: 'outside-session' });
    expect(bands.check(print(1000, at(DAY, 16, 0)))).toEqual({ kind: 'unbanded', reason: 'outside-session' });
  });

  it('knows the auction prints by their sale conditions, on every plan and from Massive', () => {
    expect(letterConditionsEffect('cta', ['O']).auction).toBe('open');
    expect(letterConditionsEffect('utp', ['@', '5']).auction).toBe('reopen');
    expect(letterConditionsEffect('cta', ['6']).auction).toBe('close');
    expect(numericConditionsEffect([17]).auction).toBe('open');
    expect(numericConditionsEffect([25]).auction).toBe('open');
    expect(numericConditionsEffect([28]).auction).toBe('reopen');
    expect(numericConditionsEffect([8]).auction).toBe('close');
    expect(numericConditionsEffect([0, 14]).auction).toBeUndefined();
    expect(letterConditionsEffect('utp', ['@']).auction).toBeUndefined();
  });
});

describe('property: a print within the band is never altered', () => {
  it('puts every print within ±2% of a level unchanged (a Tier-1 band of 5% always holds them)', () => {
    const prints = fc.array(
      fc.record({
        gapMs: fc.integer({ min: 0, max: 20_000 }),
        offset: fc.double({ min: -0.02, max: 0.02, noNaN: true }),
        counting: fc.constantFrom('full', 'full', 'full', 'volume-only'),
        auction: fc.constantFrom(undefined, undefined, undefined, undefined, 'open', 'reopen', 'close'),
      }),
      { minLength: 1, maxLength: 400 },
    );
    fc.assert(
      fc.property(fc.double({ min: 3.5, max: 5_000, noNaN: true }), prints, (level, steps) => {
        const bands = new PriceBands(() => 1);
        let timestamp = at(DAY, 9, 30);
        const close = at(DAY, 16, 0);
        steps.forEach((step, index) => {
          timestamp = Math.min(close - 1, timestamp + step.gapMs);
          const price = level * (1 + step.offset);
          const trade = { symbol: 'AAPL', price, size: 100, timestamp, tradeId: `D-${index}` };
          const verdict = bands.check({
            ...trade,
            counting: step.counting,
            ...(step.auction === undefined ? {} : { auction: step.auction }),
          });
          expect(verdict.kind).not.toBe('outside');
          expect(tradeAfterBand(trade, verdict)).toBe(trade);
        });
      }),
      { numRuns: 200 },
    );
  });
});
