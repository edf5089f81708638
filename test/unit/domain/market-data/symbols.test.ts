import { describe, expect, it } from 'vitest';
import {
  isWellFormedSymbol,
  normalizeSymbol,
  parseSymbolList,
  symbolFromPath,
} from '#domain/market-data/symbols';
import { MAX_SYMBOLS_PER_REQUEST } from '#domain/requests/limits';

describe('normalizeSymbol', () => {
  it.each([
    ['aapl', 'AAPL'],
    ['  msft ', 'MSFT'],
    ['es1!', 'ES1!'],
    ['brk.b', 'BRK.B'],
  ])('normalizes %j to %j', (raw, expected) => {
    expect(normalizeSymbol(raw)).toBe(expected);
  });
});

describe('parseSymbolList', () => {
  it('upper-cases, trims and keeps the order given', () => {
    expect(parseSymbolList('msft, aapl ,Es1!')).toEqual(['MSFT', 'AAPL', 'ES1!']);
  });

  it('drops empty entries and repeats, keeping the first occurrence', () => {
    expect(parseSymbolList(',msft,,aapl,MSFT, ,')).toEqual(['MSFT', 'AAPL']);
  });

  it('keeps the first 250 distinct symbols and silently drops the rest', () => {
    const raw = Array.from({ length: 300 }, (_, index) => `S${index}`).join(',');
    const symbols = parseSymbolList(raw);
    expect(symbols).toHaveLength(MAX_SYMBOLS_PER_REQUEST);
    expect(symbols.at(-1)).toBe('S249');
  });

  it('counts the limit in distinct symbols, so repeats do not use it up', () => {
    const raw = ['A', 'A', 'A', ...Array.from({ length: 260 }, (_, index) => `S${index}`)].join(',');
    expect(parseSymbolList(raw)).toHaveLength(250);
    expect(parseSymbolList(raw)).toContain('S248');
  });
});

describe('symbolFromPath', () => {
  it.each([
    ['ES1%21', 'ES1!'],
    ['es1!', 'ES1!'],
    ['aapl', 'AAPL'],
    ['BRK.B', 'BRK.B'],
    ['%E0%A4%A', '%E0%A4%A'],
  ])('reads %j as %j', (raw, expected) => {
    expect(symbolFromPath(raw)).toBe(expected);
  });
});

describe('isWellFormedSymbol', () => {
  it.each([
    ['', false],
    ['A', true],
    ['X'.repeat(32), true],
    ['X'.repeat(33), false],
  ])('judges %j well-formed: %s', (symbol, expected) => {
    expect(isWellFormedSymbol(symbol)).toBe(expected);
  });

  it('keeps over-long entries out of a symbol list', () => {
    expect(parseSymbolList(`AAPL,${'X'.repeat(40)},MSFT`)).toEqual(['AAPL', 'MSFT']);
  });
});
