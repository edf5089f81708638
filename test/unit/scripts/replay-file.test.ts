import { describe, expect, it } from 'vitest';
import { parseReplayCsv, parseReplayTime, ReplayFileError } from '#scripts/lib/replay-file';

describe('parseReplayTime', () => {
  it.each([
    ['2024-11-26T14:30:00Z', '2024-11-26T14:30:00Z'],
    ['2024-11-26T09:30:00-05:00', '2024-11-26T14:30:00Z'],
    ['2024-11-26 14:30:00', '2024-11-26T14:30:00Z'],
    ['1732631400', '2024-11-26T14:30:00Z'],
    ['1732631400.5', '2024-11-26T14:30:00.500Z'],
  ])('reads %s', (raw, iso) => {
    expect(parseReplayTime(raw)).toBe(Date.parse(iso));
  });

  it.each(['', 'noon', '2024-11-26', '-5'])('refuses %j', (raw) => {
    expect(parseReplayTime(raw)).toBeUndefined();
  });
});

describe('parseReplayCsv', () => {
  it('reads trades, ordered by time, with ids that sort as the file', () => {
    const csv = 'time,symbol,price,size\n1732631460,aapl,101,5\n1732631400,AAPL,100,10\n';
    expect(parseReplayCsv(csv, 'day.csv')).toEqual({
      kind: 'trades',
      trades: [
        { symbol: 'AAPL', price: 100, size: 10, timestamp: 1_732_631_400_000, tradeId: 'day.csv:000000003' },
        { symbol: 'AAPL', price: 101, size: 5, timestamp: 1_732_631_460_000, tradeId: 'day.csv:000000002' },
      ],
    });
  });

  it('turns a 1-minute bar into open, high, low, close trades inside the minute, volume split exactly', () => {
    const csv = 'time,symbol,open,high,low,close,volume\n2024-11-26T14:30:00Z,AAPL,100,102,99,101,1003\n';
    const { kind, trades } = parseReplayCsv(csv, 'bars.csv');
    const start = Date.parse('2024-11-26T14:30:00Z');
    expect(kind).toBe('bars');
    expect(trades.map(({ price, size, timestamp }) => [price, size, timestamp - start])).toEqual([
      [100, 250, 0],
      [102, 250, 15_000],
      [99, 250, 30_000],
      [101, 253, 45_000],
    ]);
  });

  it('accepts columns in any order and case', () => {
    expect(parseReplayCsv('Symbol,Size,Price,Time\nAAPL,1,100,1732631400\n', 'f').trades).toHaveLength(1);
  });

  it.each([
    ['an unknown header', 'when,what\n1,2\n', /header/],
    ['a bad time', 'time,symbol,price,size\nnoon,AAPL,1,1\n', /line 2/],
    ['a negative price', 'time,symbol,price,size\n1732631400,AAPL,-1,1\n', /line 2/],
    [
      'a time in Unix milliseconds',
      'time,symbol,price,size\n1732631400,AAPL,1,1\n1732631460000,AAPL,1,1\n',
      /line 3: .*looks like Unix milliseconds/s,
    ],
    [
      'an impossible bar',
      'time,symbol,open,high,low,close,volume\n1732631400,AAPL,100,99,98,100,1\n',
      /line 2/,
    ],
  ])('refuses a file with %s, naming the problem', (_case, csv, message) => {
    expect(() => parseReplayCsv(csv, 'f')).toThrow(ReplayFileError);
    expect(() => parseReplayCsv(csv, 'f')).toThrow(message);
  });
});
