import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { instrumentSchema } from '#domain/market-data/instruments';
import { UNIVERSE_CSV } from '#scripts/lib/project';
import { parseUniverseCsv } from '#scripts/lib/universe';

describe('parseUniverseCsv', () => {
  it('reads quoted names and marks every listed instrument active', () => {
    const csv =
      'symbol,name,market,exchange,type,sector\nnke,"Nike, Inc.",stocks,NYSE,CS,Consumer Discretionary\n';
    expect(parseUniverseCsv(csv)).toEqual([
      {
        symbol: 'NKE',
        name: 'Nike, Inc.',
        market: 'stocks',
        exchange: 'NYSE',
        type: 'CS',
        sector: 'Consumer Discretionary',
        active: true,
      },
    ]);
  });

  it('keeps an empty sector as an empty string (unclassified)', () => {
    const csv = 'symbol,name,market,exchange,type,sector\nES1!,E-mini S&P 500 Futures,futures,CME,FUT,\n';
    expect(parseUniverseCsv(csv)[0]?.sector).toBe('');
  });

  it('rejects a row with an unknown market, naming the row', () => {
    const csv = 'symbol,name,market,exchange,type,sector\nX,X,bonds,NYSE,CS,\n';
    expect(() => parseUniverseCsv(csv)).toThrow(/row 2/);
  });

  it('parses the shipped universe: S&P 500 stocks, four index ETFs and four index futures', () => {
    const instruments = parseUniverseCsv(readFileSync(UNIVERSE_CSV, 'utf8'));
    expect(instruments).toHaveLength(511);
    expect(new Set(instruments.map(({ symbol }) => symbol)).size).toBe(511);
    for (const parsed of instruments) expect(instrumentSchema.parse(parsed)).toEqual(parsed);
    expect(instruments.filter(({ market }) => market === 'futures').map(({ symbol }) => symbol)).toEqual([
      'ES1!',
      'NQ1!',
      'RTY1!',
      'YM1!',
    ]);
    expect(
      instruments
        .filter(({ type }) => type === 'ETF')
        .map(({ symbol }) => symbol)
        .sort(),
    ).toEqual(['DIA', 'IWM', 'QQQ', 'SPY']);
  });
});
