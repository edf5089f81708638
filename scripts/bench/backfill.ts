/**
 * The history import (docs/backfill.md): ten years of daily bars for the whole universe (data/universe.csv,
 * every session of 2015 to 2024: about 1.3 million rows), as a vendor file.
 *
 * - **Reading**: `readBarFile` (CSV split, every check, sorting, the duplicate check) and the derivation of
 *   1w, 1mo, 1q and 1y (`deriveBars`) of every symbol, on one thread: rows per second of wall time and per
 *   second of the process's CPU time (what one core would do on a machine shared with other work), the
 *   median of timed runs.
 * - **Import into the local stack**: a fresh in-memory local stack without the simulator, and `importBarText`
 *   (what `npm run backfill` runs) of the file's first `--symbols N` symbols (default 40; `--symbols all` for
 *   the whole file): rows per second and items written per second, and the time the whole file would take at
 *   that pace.
 * - **On AWS, on paper**: the write units of the items one million daily rows become (every bar item is under
 *   1 KB: one write unit per BatchWriteItem put), at the on-demand price of docs/storage.md.
 *
 * `npm run bench -- backfill [--symbols N|all] [--concurrency N]`, or `npx tsx scripts/bench/backfill.ts`.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { TABLE_IDS, type TableId } from '#contracts/tables';
import { sessionsBetween } from '#domain/calendar/sessions';
import { readBarFile } from '#domain/market-data/bar-file';
import { DERIVED_INTERVALS, deriveBars } from '#domain/market-data/bar-history';
import { importBarText } from '../lib/history-import.ts';
import { UNIVERSE_CSV } from '../lib/project.ts';
import { parseUniverseCsv } from '../lib/universe.ts';
import { localDocumentClient } from '../local/dynamo.ts';
import { startLocalStack } from '../local/stack.ts';
import { localTableName } from '../local/tables.ts';
import { median, printWhenMain } from './harness.ts';
import type { BenchResult } from './types.ts';

const FROM = '2015-01-01';
const TO = '2024-12-31';
/** The service clock of the import: after the file's last session. */
const NOW_MS = Date.parse('2025-01-06T15:00:00Z');
const READ_RUNS = 3;
/** On-demand write request units, us-east-1, as docs/storage.md prices them. */
const USD_PER_MILLION_WRITE_UNITS = 0.625;
const USD_PER_GB_MONTH = 0.25;

/** A random walk per symbol, every session of the range: `time,symbol,open,high,low,close,volume`. */
function dailyFile(symbols: readonly string[]): string {
  const dates = sessionsBetween(FROM, TO).map(({ date }) => date);
  const lines = ['time,symbol,open,high,low,close,volume'];
  let seed = 1;
  const next = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  for (const symbol of symbols) {
    let price = 20 + next() * 400;
    for (const date of dates) {
      const open = price;
      const close = Math.max(1, open * (1 + (next() - 0.5) * 0.04));
      const high = Math.max(open, close) * (1 + next() * 0.01);
      const low = Math.min(open, close) * (1 - next() * 0.01);
      lines.push(
        `${date},${symbol},${open.toFixed(2)},${high.toFixed(2)},${low.toFixed(2)},${close.toFixed(2)},${Math.round(1e5 + next() * 1e7)}`,
      );
      price = Number(close.toFixed(2));
    }
  }
  return `${lines.join('\n')}\n`;
}

/** DynamoDB's item size: attribute names, strings in UTF-8, numbers 1 byte per two significant digits plus 1. */
function itemSize(item: Readonly<Record<string, string | number>>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) {
    bytes += Buffer.byteLength(name);
    if (typeof value === 'string') bytes += Buffer.byteLength(value);
    else
      bytes +=
        Math.ceil(
          String(Math.abs(value))
            .replace('.', '')
            .replace(/^0+|0+$/g, '').length / 2,
        ) + 1;
  }
  return bytes;
}

export async function benchBackfill(args: readonly string[]): Promise<BenchResult[]> {
  const { values } = parseArgs({
    args: [...args],
    options: { symbols: { type: 'string', default: '40' }, concurrency: { type: 'string', default: '4' } },
    strict: false,
  });
  const universe = parseUniverseCsv(readFileSync(UNIVERSE_CSV, 'utf8'));
  const symbols = universe.map(({ symbol }) => symbol);
  const known = new Set(symbols);
  const text = dailyFile(symbols);
  const rules = {
    interval: '1d' as const,
    isKnownSymbol: (symbol: string) => known.has(symbol),
    nowMs: NOW_MS,
  };

  // Reading, checking and deriving, on this core.
  const seconds: number[] = [];
  const cpuSeconds: number[] = [];
  let rows = 0;
  let derived = 0;
  for (let run = 0; run <= READ_RUNS; run++) {
    const started = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    const file = readBarFile(text, rules);
    derived = 0;
    for (const bars of file.bars.values()) {
      for (const interval of DERIVED_INTERVALS['1d']) derived += deriveBars(interval, '1d', bars).length;
    }
    rows = file.rows;
    if (run > 0) {
      seconds.push(Number(process.hrtime.bigint() - started) / 1e9);
      const used = process.cpuUsage(cpu);
      cpuSeconds.push((used.user + used.system) / 1e6);
    }
  }
  const readSeconds = median(seconds);
  const readCpuSeconds = median(cpuSeconds);

  // The import into a local stack.
  const count = values.symbols === 'all' ? symbols.length : Math.min(Number(values.symbols), symbols.length);
  const part = text
    .split('\n')
    .filter((line, index) => index === 0 || (line !== '' && known.has(line.split(',')[1] as string)))
    .filter((line, index) => index === 0 || symbols.indexOf(line.split(',')[1] as string) < count)
    .join('\n');
  const stack = await startLocalStack({ port: 0, dynamoPort: 0 });
  let importSeconds = 0;
  let imported = { rows: 0, barsWritten: 0, symbols: 0 };
  try {
    const started = Date.now();
    const { outcome } = await importBarText(
      part,
      '1d',
      {
        documents: localDocumentClient(stack.dynamoEndpoint),
        tableNames: Object.fromEntries(TABLE_IDS.map((id) => [id, localTableName(id)])) as Record<
          TableId,
          string
        >,
      },
      { nowMs: () => NOW_MS, concurrency: Number(values.concurrency) },
    );
    importSeconds = (Date.now() - started) / 1000;
    imported = outcome;
  } finally {
    await stack.stop();
  }
  const rowsPerSecond = imported.rows / importSeconds;

  // On AWS, on paper: one write unit per bar item (all under 1 KB), per ledger, price and state item rounded up.
  const barItem = itemSize({
    series: 'GOOGL#1mo',
    time: 1_704_153_600,
    open: 187.15,
    high: 199.62,
    low: 183.89,
    close: 192.53,
    volume: 1_282_488_700,
  });
  const itemsPerMillion = (derived + rows) / rows;
  const usdPerMillion = itemsPerMillion * USD_PER_MILLION_WRITE_UNITS;
  return [
    {
      name: 'backfill: reading, checking and deriving a daily file (one core)',
      figures: {
        rows,
        symbols: symbols.length,
        'derived bars (1w, 1mo, 1q, 1y)': derived,
        'seconds (median)': readSeconds.toFixed(2),
        'rows/s': Math.round(rows / readSeconds).toLocaleString('en-US'),
        'CPU seconds (median, this process)': readCpuSeconds.toFixed(2),
        'rows per CPU second': Math.round(rows / readCpuSeconds).toLocaleString('en-US'),
        'load average (1 min) at the end': loadavg()[0]?.toFixed(1) ?? '',
        runs: `${READ_RUNS} timed after 1 warm-up`,
      },
    },
    {
      name: 'backfill: import into the local stack (dynalite, in memory)',
      figures: {
        symbols: imported.symbols,
        rows: imported.rows,
        'bars written': imported.barsWritten,
        seconds: importSeconds.toFixed(1),
        'rows/s': Math.round(rowsPerSecond).toLocaleString('en-US'),
        'items/s': Math.round(imported.barsWritten / importSeconds).toLocaleString('en-US'),
        concurrency: Number(values.concurrency),
        [`whole file (${rows.toLocaleString('en-US')} rows) at this pace, minutes`]: (
          rows /
          rowsPerSecond /
          60
        ).toFixed(1),
      },
    },
    {
      name: 'backfill: DynamoDB writes on AWS per million daily rows (on paper)',
      figures: {
        'bar item size, bytes (largest key, 10-digit volume)': barItem,
        'bar items per daily row (1d + derived)': itemsPerMillion.toFixed(3),
        'write units per million rows': Math.round(itemsPerMillion * 1e6).toLocaleString('en-US'),
        'USD per million rows (on-demand writes)': usdPerMillion.toFixed(2),
        'storage per million rows, MB (item + 100 B overhead)': (
          (itemsPerMillion * 1e6 * (barItem + 100)) /
          1e6
        ).toFixed(0),
        'USD per month of that storage': (
          ((itemsPerMillion * 1e6 * (barItem + 100)) / 1e9) *
          USD_PER_GB_MONTH
        ).toFixed(3),
      },
    },
  ];
}

await printWhenMain(import.meta.url, benchBackfill);
