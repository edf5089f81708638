import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stateSnapshotSchema } from '#domain/strat/state-snapshot';
import { localDocumentClient } from '../../scripts/local/dynamo.ts';
import { startTestStack, type TestStack } from '../support/local-stack.ts';
import { runScript } from '../support/processes.ts';

/**
 * test/fixtures/aapl-daily-bars.csv: nine daily bars of AAPL, imported with `npm run backfill` into a local
 * stack without the simulator whose clock reads Tuesday 2024-11-26 10:00 New York:
 *
 *   2023-12-28 O100   H102   L99    C101   V1000     2024-04-01 O110   H112   L109   C111   V800
 *   2023-12-29 O101   H103   L100   C102   V1100     2024-11-20 O120   H121   L118   C119   V700
 *   2024-01-02 O102   H104   L101   C103   V1200     2024-11-21 O119   H122   L119   C121.5 V600
 *   2024-01-03 O103   H103.5 L100   C100.5 V900      2024-11-22 O121.5 H123   L120   C122   V500
 *                                                    2024-11-25 O122   H122.5 L120.5 C121   V400
 *
 * The expected bars below are worked out by hand from the calendar: Christmas 2023 and New Year's Day 2024
 * fell on Mondays (those weeks start on Tuesday), 2023's first session was Tuesday 2023-01-03, and the fourth
 * quarter of 2023 began on Monday 2023-10-02, that of 2024 on Tuesday 2024-10-01.
 */
const FILE = 'test/fixtures/aapl-daily-bars.csv';
const NOW = '2024-11-26T15:00:00Z';
const day = (date: string) => Date.parse(`${date}T00:00:00Z`) / 1000;
const bar = (date: string, open: number, high: number, low: number, close: number, volume: number) => ({
  time: day(date),
  open,
  high,
  low,
  close,
  volume,
});

let local: TestStack;
let scratch: string;

function backfill(file: string) {
  return runScript('scripts/backfill.ts', [
    '--file',
    file,
    '--interval',
    '1d',
    '--endpoint',
    local.stack.dynamoEndpoint,
    '--now',
    NOW,
  ]);
}

async function candles(symbol: string, interval: string) {
  return (await local.candles(symbol, `?interval=${interval}&start=2023-01-01`)).bars;
}

async function itemCount(table: string): Promise<number> {
  const output = await localDocumentClient(local.stack.dynamoEndpoint).send(
    new ScanCommand({ TableName: table, Select: 'COUNT' }),
  );
  return output.Count ?? 0;
}

beforeAll(async () => {
  local = await startTestStack({ clock: { start: new Date(NOW), speed: 1 } });
  scratch = await mkdtemp(join(tmpdir(), 'backfill-test-'));
  const run = await backfill(FILE);
  expect(run.stderr).not.toMatch(/Error|backfill:/);
  expect(run.code).toBe(0);
  expect(run.stdout).toContain('Checked test/fixtures/aapl-daily-bars.csv: 9 rows, 1 symbols');
  expect(run.stdout).toContain('Sessions: 9 added, 0 already there, 0 kept as the service has them.');
}, 60_000);
afterAll(async () => {
  await local.stop();
  await rm(scratch, { recursive: true, force: true });
});

describe('npm run backfill of a daily file, read back over REST', () => {
  it('serves the daily bars themselves', async () => {
    expect(await candles('AAPL', '1d')).toEqual([
      bar('2023-12-28', 100, 102, 99, 101, 1000),
      bar('2023-12-29', 101, 103, 100, 102, 1100),
      bar('2024-01-02', 102, 104, 101, 103, 1200),
      bar('2024-01-03', 103, 103.5, 100, 100.5, 900),
      bar('2024-04-01', 110, 112, 109, 111, 800),
      bar('2024-11-20', 120, 121, 118, 119, 700),
      bar('2024-11-21', 119, 122, 119, 121.5, 600),
      bar('2024-11-22', 121.5, 123, 120, 122, 500),
      bar('2024-11-25', 122, 122.5, 120.5, 121, 400),
    ]);
  });

  it('builds weeks dated by their first session, Christmas and New Year weeks starting on Tuesday', async () => {
    expect(await candles('AAPL', '1w')).toEqual([
      bar('2023-12-26', 100, 103, 99, 102, 2100),
      bar('2024-01-02', 102, 104, 100, 100.5, 2100),
      bar('2024-04-01', 110, 112, 109, 111, 800),
      bar('2024-11-18', 120, 123, 118, 122, 1800),
      bar('2024-11-25', 122, 122.5, 120.5, 121, 400),
    ]);
  });

  it('builds months, quarters and years dated by the first session of the period', async () => {
    expect(await candles('AAPL', '1mo')).toEqual([
      bar('2023-12-01', 100, 103, 99, 102, 2100),
      bar('2024-01-02', 102, 104, 100, 100.5, 2100),
      bar('2024-04-01', 110, 112, 109, 111, 800),
      bar('2024-11-01', 120, 123, 118, 121, 2200),
    ]);
    expect(await candles('AAPL', '1q')).toEqual([
      bar('2023-10-02', 100, 103, 99, 102, 2100),
      bar('2024-01-02', 102, 104, 100, 100.5, 2100),
      bar('2024-04-01', 110, 112, 109, 111, 800),
      bar('2024-10-01', 120, 123, 118, 121, 2200),
    ]);
    expect(await candles('AAPL', '1y')).toEqual([
      bar('2023-01-03', 100, 103, 99, 102, 2100),
      bar('2024-01-02', 102, 123, 100, 121, 5100),
    ]);
  });

  it('gives /states the TFC and the setups of the history at once', async () => {
    const response = await local.get('/states/AAPL');
    expect(response.status).toBe(200);
    const state = stateSnapshotSchema.parse(response.body);
    // The last close, 121: below the open of the day and week of 2024-11-25, above those of the month,
    // quarter and year.
    expect(state.price).toEqual({ price: 121, volume: 0, time: '2024-11-25T20:59:59.999Z' });
    expect(state.tfc).toEqual({ D: 'red', W: 'red', M: 'green', Q: 'green', Y: 'green' });
    const row = { symbol: 'AAPL', p3: false, sector: 'Information Technology' };
    expect(state.setups).toEqual([
      // Monday is an inside bar of Friday, which broke Thursday's high: 2U-1; no day is forming.
      { ...row, timeframe: 'D', shape: '2U-1', in_force: false, pmg: null, continuation: false },
      // This week is inside the last one so far: not in force.
      { ...row, timeframe: 'W', shape: '2U-2U', in_force: false, pmg: null, continuation: false },
      // November has taken April's high out (and not its low): in force, a continuation.
      { ...row, timeframe: 'M', shape: '2U-2U', in_force: true, pmg: null, continuation: true },
      { ...row, timeframe: 'Q', shape: '2U-2U', in_force: true, pmg: null, continuation: true },
    ]);
    const current = await local.get('/setups/current?timeframes=M');
    expect(current.body.items).toEqual([
      { ...row, timeframe: 'M', shape: '2U-2U', in_force: true, pmg: null, continuation: true },
    ]);
  });

  it('fires no in-force alert and no simultaneous break for the past', async () => {
    expect(await itemCount('alerts')).toBe(0);
    expect(await itemCount('breaks')).toBe(0);
    const alerts = await local.get('/alerts/in-force?since_id=0');
    expect(alerts.status).toBe(200);
    expect(alerts.body.items).toEqual([]);
  });

  it('changes nothing when the same file is imported again', async () => {
    const before = await candles('AAPL', '1y');
    const again = await backfill(FILE);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Sessions: 0 added, 9 already there, 0 kept as the service has them.');
    expect(again.stdout).toContain('0 bars written, 0 ledgers and 0 Strat states updated');
    expect(await candles('AAPL', '1y')).toEqual(before);
  });

  it('refuses a bad file whole, naming each line, and writes nothing of it', async () => {
    const bad = join(scratch, 'bad.csv');
    await writeFile(
      bad,
      [
        'time,symbol,open,high,low,close,volume',
        '2024-11-20,MSFT,400,410,395,405,100',
        '2024-11-21,MSFT,405,400,410,405,100',
        '2024-11-23,MSFT,405,410,400,406,100',
        '2024-11-22,NOPE,1,1,1,1,1',
      ].join('\n'),
    );
    const run = await backfill(bad);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('backfill: the file is refused, nothing was written (3 problems)');
    expect(run.stderr).toContain('line 3: low 410 is above high 400');
    expect(run.stderr).toContain('line 4: 2024-11-23 is not a session of the market calendar');
    expect(run.stderr).toContain('line 5: unknown symbol "NOPE" (not in the universe)');
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(await candles('MSFT', '1d')).toEqual([]);
  });
});
