import { describe, expect, it } from 'vitest';
import {
  decodeTradeRecord,
  encodeTradeRecord,
  encodeTradeRecords,
  TRADES_PER_RECORD,
} from '#domain/market-data/trade-records';

const trade = { symbol: 'ES1!', price: 5950.25, size: 3, timestamp: 1_732_890_600_000, tradeId: 'x-1' };

describe('trade records', () => {
  it('round-trips a trade', () => {
    expect(decodeTradeRecord(encodeTradeRecord(trade))).toEqual([trade]);
  });

  it('normalizes the symbol', () => {
    expect(decodeTradeRecord(JSON.stringify({ ...trade, symbol: ' es1! ' }))?.[0]?.symbol).toBe('ES1!');
  });

  it.each([
    ['not JSON', 'garbage'],
    ['an empty list', '[]'],
    ['a list with one bad trade', JSON.stringify([trade, { ...trade, price: 0 }])],
    ['a list over the capacity', JSON.stringify(Array.from({ length: TRADES_PER_RECORD + 1 }, () => trade))],
    ['no tradeId', JSON.stringify({ ...trade, tradeId: undefined })],
    ['a zero price', JSON.stringify({ ...trade, price: 0 })],
    ['a negative size', JSON.stringify({ ...trade, size: -1 })],
    ['a string price', JSON.stringify({ ...trade, price: '1' })],
    ['a fractional timestamp', JSON.stringify({ ...trade, timestamp: 1.5 })],
    ['an empty symbol', JSON.stringify({ ...trade, symbol: '' })],
  ])('finds no trade in %s', (_case, json) => {
    expect(decodeTradeRecord(json)).toBeUndefined();
  });

  it('puts runs of one symbol’s consecutive trades in one record each, up to the capacity, in order', () => {
    const trades = [
      ...Array.from({ length: TRADES_PER_RECORD + 1 }, (_, i) => ({ ...trade, tradeId: `a${i}` })),
      { ...trade, symbol: 'NQ1!' },
      { ...trade, tradeId: 'b' },
    ];
    const records = encodeTradeRecords(trades);
    expect(records.map(({ partitionKey, trades: count }) => [partitionKey, count])).toEqual([
      ['ES1!', TRADES_PER_RECORD],
      ['ES1!', 1],
      ['NQ1!', 1],
      ['ES1!', 1],
    ]);
    expect(records.flatMap(({ data }) => decodeTradeRecord(data) ?? [])).toEqual(trades);
  });
});

describe('trade records: volume-only trades', () => {
  const base = { symbol: 'AAPL', price: 10, size: 5, timestamp: 1_700_000_000_000, tradeId: 't1' };

  it('carries volumeOnly when set and leaves it out when absent', () => {
    const [record] = encodeTradeRecords([
      { ...base, volumeOnly: true },
      { ...base, tradeId: 't2' },
    ]);
    expect(JSON.parse(record?.data ?? '')).toEqual([
      { ...base, volumeOnly: true },
      { ...base, tradeId: 't2' },
    ]);
    expect(decodeTradeRecord(record?.data ?? '')).toEqual([
      { ...base, volumeOnly: true },
      { ...base, tradeId: 't2' },
    ]);
  });

  it('refuses a record whose volumeOnly is not a boolean', () => {
    expect(decodeTradeRecord(JSON.stringify({ ...base, volumeOnly: 'yes' }))).toBeUndefined();
  });

  it('carries cancels and corrections after their original, in the same record, in order', () => {
    const cancel = { symbol: 'ES1!', amends: 'x-1', timestamp: trade.timestamp };
    const correction = {
      symbol: 'ES1!',
      amends: 'x-2',
      timestamp: trade.timestamp,
      corrected: { price: 5951, size: 30, tradeId: 'x-3', volumeOnly: true },
    };
    const [record] = encodeTradeRecords([trade, cancel, correction]);
    expect(JSON.parse(record?.data ?? '')).toEqual([trade, { ...cancel, cancel: true }, correction]);
    expect(decodeTradeRecord(record?.data ?? '')).toEqual([trade, cancel, correction]);
  });

  it.each([
    ['neither cancel nor corrected', { symbol: 'A', amends: 'x', timestamp: 1 }],
    ['cancel false', { symbol: 'A', amends: 'x', timestamp: 1, cancel: false }],
    [
      'a corrected price of zero',
      { symbol: 'A', amends: 'x', timestamp: 1, corrected: { price: 0, size: 1, tradeId: 'y' } },
    ],
    ['no amends', { symbol: 'A', timestamp: 1, cancel: true }],
  ])('refuses an amendment with %s', (_, value) => {
    expect(decodeTradeRecord(JSON.stringify(value))).toBeUndefined();
  });
});
