import { describe, expect, it } from 'vitest';
import { BarFileError, type BarFileRules, readBarFile } from '#domain/market-data/bar-file';

const UNIVERSE = new Set(['AAPL', 'MSFT', 'ES1!']);
const daily: BarFileRules = {
  interval: '1d',
  isKnownSymbol: (symbol) => UNIVERSE.has(symbol),
  nowMs: Date.parse('2026-01-10T00:00:00Z'),
};
const minute: BarFileRules = { ...daily, interval: '1m' };
const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`) / 1000;

/** The refusals of a file, or a failure when it is accepted. */
function problemsOf(text: string, rules: BarFileRules = daily): string[] {
  try {
    readBarFile(text, rules);
  } catch (error) {
    if (error instanceof BarFileError) return [...error.problems];
    throw error;
  }
  throw new Error('the file was accepted');
}

describe('readBarFile', () => {
  it('reads columns in any order and case, normalizes symbols, sorts each symbol by time and reports extra columns', () => {
    const file = readBarFile(
      [
        'Volume,CLOSE,symbol,Low,high,open,Time,vwap',
        '2000,11,msft,9.5,11.5,10,2024-11-26,10.7',
        '1000,101,aapl,99,102,100,2024-11-26,100.5',
        '1500,100,AAPL,98,101,99,2024-11-25,99.5',
      ].join('\r\n'),
      daily,
    );
    expect(file.rows).toBe(3);
    expect(file.extraColumns).toEqual(['vwap']);
    expect([...file.bars.keys()]).toEqual(['MSFT', 'AAPL']);
    expect(file.bars.get('AAPL')).toEqual([
      { time: day('2024-11-25'), open: 99, high: 101, low: 98, close: 100, volume: 1500, line: 4 },
      { time: day('2024-11-26'), open: 100, high: 102, low: 99, close: 101, volume: 1000, line: 3 },
    ]);
  });

  it('reads a quoted file (csv-parse) into the same bars as the plain one', () => {
    const plain =
      'time,symbol,open,high,low,close,volume\n2024-11-25,AAPL,99,101,98,100,1500\n\n2024-11-26,ES1!,5,6,4,5.5,7\n';
    const quoted =
      '"time","symbol","open","high","low","close","volume"\n"2024-11-25","AAPL","99","101","98","100","1500"\n\n"2024-11-26","ES1!",5,6,4,5.5,7\n';
    expect(readBarFile(quoted, daily)).toEqual(readBarFile(plain, daily));
  });

  it('reads 1m times as ISO 8601 or Unix seconds and counts the rows outside the regular session', () => {
    const file = readBarFile(
      [
        'time,symbol,open,high,low,close,volume',
        '2024-11-25T14:30:00Z,AAPL,100,101,99,100.5,10',
        '1732545060,AAPL,100.5,101,100,100.8,20',
        '2024-11-25T09:31:00-05:00,MSFT,10,10,10,10,1',
        '2024-11-25T21:05:00Z,AAPL,100,100,100,100,5',
        '2024-11-25T14:29:00Z,AAPL,100,100,100,100,5',
        '2024-11-28T15:00:00Z,AAPL,100,100,100,100,5',
      ].join('\n'),
      minute,
    );
    expect(file.ignored).toEqual({ outsideSession: 3 });
    expect(file.bars.get('AAPL')?.map(({ time }) => time)).toEqual([1732545000, 1732545060]);
    expect(file.bars.get('MSFT')?.map(({ time }) => time)).toEqual([1732545060]);
  });

  it.each([
    ['2024-11-25,AAPL,100,101,99', 'line 2: malformed line: 5 fields where the header has 7'],
    ['2024-11-25,AAPL,abc,101,99,100,5', 'line 2: open, high, low and close must be numbers above zero'],
    ['2024-11-25,AAPL,0,101,0,100,5', 'line 2: open, high, low and close must be numbers above zero'],
    ['2024-11-25,AAPL,100,99,101,100,5', 'line 2: low 101 is above high 99'],
    ['2024-11-25,AAPL,102,101,99,100,5', 'line 2: open 102 or close 100 is outside low..high (99..101)'],
    ['2024-11-25,AAPL,100,101,99,98,5', 'line 2: open 100 or close 98 is outside low..high (99..101)'],
    ['2024-11-25,AAPL,100,101,99,100,-1', 'line 2: negative volume -1'],
    ['2024-11-25,AAPL,100,101,99,100,', 'line 2: volume must be a number'],
    ['2024-11-25,NOPE,100,101,99,100,5', 'line 2: unknown symbol "NOPE" (not in the universe)'],
    [
      '2024-11-28,AAPL,100,101,99,100,5',
      'line 2: 2024-11-28 is not a session of the market calendar (weekend or holiday)',
    ],
    [
      '2024-11-30,AAPL,100,101,99,100,5',
      'line 2: 2024-11-30 is not a session of the market calendar (weekend or holiday)',
    ],
    ['2024-02-30,AAPL,100,101,99,100,5', 'line 2: time "2024-02-30" is not a date YYYY-MM-DD'],
    ['24-11-25,AAPL,100,101,99,100,5', 'line 2: time "24-11-25" is not a date YYYY-MM-DD'],
    [
      '2026-01-09,AAPL,100,101,99,100,5',
      'line 2: its session ends at 2026-01-09T21:00:00.000Z, after the service clock (2026-01-09T20:00:00.000Z): only ended periods are history',
    ],
  ])('refuses the daily row %s: %s', (row, problem) => {
    const rules = row.startsWith('2026-01-09')
      ? { ...daily, nowMs: Date.parse('2026-01-09T20:00:00Z') }
      : daily;
    expect(problemsOf(`time,symbol,open,high,low,close,volume\n${row}`, rules)).toEqual([problem]);
  });

  it.each([
    [
      '2024-11-25T14:30:30Z,AAPL,100,101,99,100,5',
      'line 2: time "2024-11-25T14:30:30Z" does not start on a minute',
    ],
    [
      '1732545000000,AAPL,100,101,99,100,5',
      'line 2: time "1732545000000" looks like Unix milliseconds; give Unix seconds or ISO 8601',
    ],
    ['yesterday,AAPL,100,101,99,100,5', 'line 2: time "yesterday" is neither ISO 8601 nor Unix seconds'],
  ])('refuses the minute row %s: %s', (row, problem) => {
    expect(problemsOf(`time,symbol,open,high,low,close,volume\n${row}`, minute)).toEqual([problem]);
  });

  it('refuses a duplicate (symbol, time), naming both lines, whatever the symbol case', () => {
    expect(
      problemsOf(
        'time,symbol,open,high,low,close,volume\n2024-11-25,AAPL,100,101,99,100,5\n2024-11-26,AAPL,100,101,99,100,5\n2024-11-25,aapl,100,101,99,100,6',
      ),
    ).toEqual(['line 4: duplicate (AAPL, 2024-11-25): line 2 has it already']);
  });

  it('refuses a header without the seven columns, and an empty file', () => {
    expect(problemsOf('time,symbol,open,high,low,close\n2024-11-25,AAPL,100,101,99,100')).toEqual([
      'line 1: the header must name time,symbol,open,high,low,close,volume (any order, any case): it lacks volume',
    ]);
    expect(problemsOf('\n\n')).toEqual(['line 1: the file is empty: a header is required']);
  });

  it('checks the whole file and lists every refusal with its line, counting those past the first 20', () => {
    const rows = Array.from({ length: 25 }, (_, index) => `2024-11-25,AAPL,100,101,99,100,-${index + 1}`);
    let error: unknown;
    try {
      readBarFile(`time,symbol,open,high,low,close,volume\n${rows.join('\n')}`, daily);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(BarFileError);
    const refused = error as BarFileError;
    expect(refused.total).toBe(25);
    expect(refused.problems).toHaveLength(20);
    expect(refused.problems[0]).toBe('line 2: negative volume -1');
    expect(refused.message).toContain('nothing was written (25 problems)');
    expect(refused.message).toContain('... and 5 more');
  });
});
