import { describe, expect, it } from 'vitest';
import {
  countingOf,
  letterConditionsEffect,
  numericConditionsEffect,
  planOfTape,
  SALE_CONDITIONS,
} from '#domain/feed/sale-conditions';

describe('sale conditions', () => {
  it.each([
    ['cta', [' '], 'full'],
    ['utp', ['@'], 'full'],
    ['cta', ['@', 'I'], 'volume-only'],
    ['utp', ['@', 'F', 'I'], 'volume-only'],
    ['cta', [' ', 'T'], 'volume-only'],
    ['cta', ['Z'], 'volume-only'],
    ['cta', ['M'], 'excluded'],
    ['utp', ['Q'], 'excluded'],
    ['cta', ['9'], 'excluded'],
    ['utp', ['@', 'F'], 'full'],
    ['cta', ['B'], 'volume-only'],
    ['utp', ['B'], 'full'],
    ['cta', [], 'full'],
    ['utp', ['2'], 'full'],
    ['utp', ['3'], 'volume-only'],
    ['utp', ['E'], 'volume-only'],
  ] as const)('on the %s plan, conditions %j count %s', (plan, codes, counting) => {
    expect(countingOf(letterConditionsEffect(plan, codes).effect)).toBe(counting);
  });

  it.each([
    [[0], 'full'],
    [[14, 41], 'full'],
    [[14, 37, 41], 'volume-only'],
    [[12, 37], 'volume-only'],
    [[15], 'excluded'],
    [[16], 'excluded'],
    [[38], 'excluded'],
    [[], 'full'],
    [[60], 'full'],
    [[14, 57], 'full'],
    [[12, 60], 'volume-only'],
    [[0, 67], 'full'],
    [[31], 'full'],
    [[33], 'volume-only'],
    [[6], 'full'],
  ] as const)('Polygon conditions %j count %s', (ids, counting) => {
    expect(countingOf(numericConditionsEffect(ids).effect)).toBe(counting);
  });

  it('reads a corrected consolidated close as moving prices but not volume (so not put: the fold has no price-only print)', () => {
    expect(numericConditionsEffect([38]).effect).toEqual({
      lastPrice: true,
      highLow: true,
      openClose: true,
      volume: false,
    });
    expect(numericConditionsEffect([60]).unknown).toEqual([]);
  });

  it('counts an unknown code in volume only and reports it', () => {
    const verdict = numericConditionsEffect([0, 999]);
    expect(verdict.unknown).toEqual([999]);
    expect(countingOf(verdict.effect)).toBe('volume-only');
    expect(letterConditionsEffect('cta', ['?']).unknown).toEqual(['?']);
  });

  it('gives an odd lot the same effect whichever way it arrives', () => {
    const effects = [
      letterConditionsEffect('cta', ['I']).effect,
      letterConditionsEffect('utp', ['I']).effect,
      numericConditionsEffect([37]).effect,
    ];
    for (const effect of effects) {
      expect(effect).toEqual({ lastPrice: false, highLow: false, openClose: false, volume: true });
    }
  });

  it('maps Alpaca tapes to plans', () => {
    expect([planOfTape('A'), planOfTape('B'), planOfTape('C')]).toEqual(['cta', 'cta', 'utp']);
  });

  it('has no code that two rows claim', () => {
    const seen = { cta: new Set<string>(), utp: new Set<string>(), polygon: new Set<number>() };
    for (const row of SALE_CONDITIONS) {
      if (row.cta !== undefined) {
        expect(seen.cta.has(row.cta)).toBe(false);
        seen.cta.add(row.cta);
      }
      if (row.utp !== undefined) {
        expect(seen.utp.has(row.utp)).toBe(false);
        seen.utp.add(row.utp);
      }
      for (const id of row.polygon ?? []) {
        expect(seen.polygon.has(id)).toBe(false);
        seen.polygon.add(id);
      }
    }
  });
});
