import { describe, expect, it } from 'vitest';
import { decodeTradeRecord, encodeTradeRecord } from '#domain/market-data/trade-records';

const trade = { symbol: 'ES1!', price: 5950.25, size: 3, timestamp: 1_732_890_600_000, tradeId: 'x-1' };

describe('trade records', () => {
  it('round-trips a trade', () => {
    expect(decodeTradeRecord(encodeTradeRecord(trade))).toEqual(trade);
  });

  it('normalizes the symbol', () => {
    expect(decodeTradeRecord(JSON.stringify({ ...trade, symbol: ' es1! ' }))?.symbol).toBe('ES1!');
  });

  it.each([
    ['not JSON', 'garbage'],
    ['an array', '[]'],
    ['no tradeId', JSON.stringify({ ...trade, tradeId: undefined })],
    ['a zero price', JSON.stringify({ ...trade, price: 0 })],
    ['a negative size', JSON.stringify({ ...trade, size: -1 })],
    ['a string price', JSON.stringify({ ...trade, price: '1' })],
    ['a fractional timestamp', JSON.stringify({ ...trade, timestamp: 1.5 })],
    ['an empty symbol', JSON.stringify({ ...trade, symbol: '' })],
  ])('finds no trade in %s', (_case, json) => {
    expect(decodeTradeRecord(json)).toBeUndefined();
  });
});
