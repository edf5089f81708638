import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sessionOn, sessionsBetween } from '#domain/calendar/sessions';
import { CSV_HEADER, runCalendar, sessionCsvLine, sessionsCsv, UsageError } from '#scripts/calendar';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI as an operator would: `npx tsx scripts/calendar.ts ...`, npm's own warnings silenced. */
function runCli(args: readonly string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('npx', ['tsx', 'scripts/calendar.ts', ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, npm_config_loglevel: 'error', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function session(date: string) {
  const found = sessionOn(date);
  if (found === undefined) throw new Error(`expected a session on ${date}`);
  return found;
}

describe('sessionCsvLine', () => {
  it.each([
    ['2024-11-29', '2024-11-29,2024-11-29T14:30:00Z,2024-11-29T18:00:00Z', 'an early close in EST'],
    ['2024-07-03', '2024-07-03,2024-07-03T13:30:00Z,2024-07-03T17:00:00Z', 'an early close in EDT'],
    [
      '2024-03-11',
      '2024-03-11,2024-03-11T13:30:00Z,2024-03-11T20:00:00Z',
      'the Monday after the spring change',
    ],
    [
      '2024-11-04',
      '2024-11-04,2024-11-04T14:30:00Z,2024-11-04T21:00:00Z',
      'the Monday after the autumn change',
    ],
    ['2005-06-01', '2005-06-01,2005-06-01T13:30:00Z,2005-06-01T19:56:00Z', 'the 15:56 close of 2005'],
  ])('formats %s as %s (%s)', (date, line) => {
    expect(sessionCsvLine(session(date))).toBe(line);
  });
});

describe('sessionsCsv', () => {
  const sessions = sessionsBetween('2024-11-27', '2024-12-02');
  const lines = [
    '2024-11-27,2024-11-27T14:30:00Z,2024-11-27T21:00:00Z',
    '2024-11-29,2024-11-29T14:30:00Z,2024-11-29T18:00:00Z',
    '2024-12-02,2024-12-02T14:30:00Z,2024-12-02T21:00:00Z',
  ];

  it('prints one line per session, each ending in a newline', () => {
    expect(sessionsCsv(sessions, false)).toBe(`${lines.join('\n')}\n`);
  });

  it('puts the header first when asked', () => {
    expect(sessionsCsv(sessions, true)).toBe(`${[CSV_HEADER, ...lines].join('\n')}\n`);
    expect(CSV_HEADER).toBe('date,open,close');
  });

  it('prints nothing for no session, and only the header with --header', () => {
    expect(sessionsCsv([], false)).toBe('');
    expect(sessionsCsv([], true)).toBe('date,open,close\n');
  });
});

describe('runCalendar', () => {
  it('prints the sessions of the range', () => {
    expect(runCalendar(['--from', '2024-12-24', '--to', '2024-12-26', '--header'])).toBe(
      'date,open,close\n2024-12-24,2024-12-24T14:30:00Z,2024-12-24T18:00:00Z\n' +
        '2024-12-26,2024-12-26T14:30:00Z,2024-12-26T21:00:00Z\n',
    );
  });

  it('accepts --from=... and --to=...', () => {
    expect(runCalendar(['--from=2024-12-26', '--to=2024-12-26'])).toBe(
      '2024-12-26,2024-12-26T14:30:00Z,2024-12-26T21:00:00Z\n',
    );
  });

  it.each([
    ['no argument', [], UsageError, /missing --from/],
    ['no --to', ['--from', '2024-01-01'], UsageError, /missing --to/],
    ['no --from', ['--to', '2024-01-01'], UsageError, /missing --from/],
    ['an unknown option', ['--from', '2024-01-01', '--to', '2024-01-31', '--csv'], UsageError, /--csv/],
    ['a positional argument', ['2024-01-01'], UsageError, /positional/i],
    ['--from without a value', ['--to', '2024-01-01', '--from'], UsageError, /--from/],
    ['a malformed date', ['--from', '2024-1-1', '--to', '2024-01-31'], RangeError, /YYYY-MM-DD/],
    [
      'an impossible date',
      ['--from', '2024-02-30', '--to', '2024-03-31'],
      RangeError,
      /no such calendar day/,
    ],
    ['a date before the range', ['--from', '1989-12-01', '--to', '1990-01-31'], RangeError, /outside/],
    ['a date after the range', ['--from', '2099-12-01', '--to', '2100-01-31'], RangeError, /outside/],
    ['--from after --to', ['--from', '2024-12-31', '--to', '2024-01-01'], RangeError, /after/],
  ])('rejects %s', (_label, argv, errorType, message) => {
    expect(() => runCalendar(argv)).toThrow(errorType);
    expect(() => runCalendar(argv)).toThrow(message);
  });
});

describe('the calendar CLI, end to end', () => {
  it('prints the CSV and exits 0', { timeout: 60_000 }, async () => {
    const result = await runCli(['--from', '2024-11-27', '--to', '2024-12-02', '--header']);
    expect(result).toEqual({
      code: 0,
      stdout:
        'date,open,close\n' +
        '2024-11-27,2024-11-27T14:30:00Z,2024-11-27T21:00:00Z\n' +
        '2024-11-29,2024-11-29T14:30:00Z,2024-11-29T18:00:00Z\n' +
        '2024-12-02,2024-12-02T14:30:00Z,2024-12-02T21:00:00Z\n',
      stderr: '',
    });
  });

  it('reports a bad argument in one stderr line and exits 2', { timeout: 60_000 }, async () => {
    const result = await runCli(['--from', '2024-13-01', '--to', '2024-12-31']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const lines = result.stderr.split('\n').filter((line) => line !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^calendar: Invalid date "2024-13-01"/);
    expect(result.stderr).not.toMatch(/\bat .+:\d+:\d+/);
  });
});
