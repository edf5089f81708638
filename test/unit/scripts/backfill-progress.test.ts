import { describe, expect, it } from 'vitest';
import { ProgressReporter, progressLine } from '#scripts/lib/backfill-progress';

const halfway = { rows: 650_000, totalRows: 1_300_000, symbols: 255, totalSymbols: 511, elapsedMs: 60_000 };

describe('progressLine', () => {
  it('says the rows and symbols done, the pace and about how long is left, with a bar on a terminal', () => {
    expect(progressLine(halfway, true)).toBe(
      '[############------------] 50% 650,000/1,300,000 rows, 255/511 symbols, 10,833 rows/s, about 1 min 0 s left',
    );
    expect(progressLine({ ...halfway, rows: 1_300_000, symbols: 511 }, false)).toBe(
      '100% 1,300,000/1,300,000 rows, 511/511 symbols, 21,667 rows/s, done',
    );
    expect(progressLine({ ...halfway, rows: 0, symbols: 0, elapsedMs: 0 }, false)).toContain('estimating');
  });
});

describe('ProgressReporter', () => {
  it('redraws one line in place on a terminal, ending it when done', () => {
    const written: string[] = [];
    const reporter = new ProgressReporter({ isTTY: true, write: (text) => written.push(text) });
    reporter.update(halfway);
    reporter.update({ ...halfway, rows: 1_300_000, symbols: 511 });
    expect(written[0]?.startsWith('\r[')).toBe(true);
    expect(written[0]?.endsWith('\u001b[K')).toBe(true);
    expect(written[1]?.endsWith('\n')).toBe(true);
  });

  it('prints a line at most every 5 seconds elsewhere, and always the last one', () => {
    const written: string[] = [];
    let now = 0;
    const reporter = new ProgressReporter({ write: (text) => written.push(text) }, () => now);
    reporter.update(halfway);
    now = 4_000;
    reporter.update(halfway);
    now = 5_000;
    reporter.update(halfway);
    now = 5_100;
    reporter.update({ ...halfway, rows: 1_300_000, symbols: 511 });
    expect(written).toHaveLength(3);
    expect(written.every((line) => line.endsWith('\n') && !line.includes('['))).toBe(true);
  });
});
