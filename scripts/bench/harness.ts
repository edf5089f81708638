/**
 * What the benchmarks share: the seeded synthetic trade streams (scripts/bench/aggregation.ts,
 * scripts/bench/strat.ts), timing with warm-up and median, percentiles and lag figures
 * (scripts/bench/pipeline.ts, scripts/bench/websocket.ts), sleeping, and printing a benchmark run on its own.
 */
import { pathToFileURL } from 'node:url';
import { sessionOn } from '#domain/calendar/sessions';
import type { Trade } from '#domain/market-data/bars';
import { seededRandom } from '../lib/seeded-random.ts';
import type { Bench } from './types.ts';

/** Every REDELIVERY_EVERY-th batch is delivered a second time right after the first. */
export const REDELIVERY_EVERY = 50;
/** The share of live trades printed in the hour before the open (pre-market). */
export const OUTSIDE_SESSION_SHARE = 0.01;
export const WARM_UP_RUNS = 2;
export const TIMED_RUNS = 7;

/** A small deterministic generator, so every run folds the same stream. */
export const random = seededRandom;

/** A random-walk price, stepped per trade. */
export function walk(price: number, next: () => number, scale: number): number {
  return Math.max(0.01, Math.round(price * (1 + (next() - 0.5) * scale) * 100) / 100);
}

/**
 * One symbol's live trades through the sessions on `dates`: `perSession` a session at sorted random times
 * (a few pre-market), a random walk from `startPrice`, trade ids `idPrefix` + a base-36 sequence.
 */
export function sessionTrades(
  symbol: string,
  dates: readonly string[],
  perSession: number,
  startPrice: number,
  next: () => number,
  idPrefix = '',
): Trade[] {
  const trades: Trade[] = [];
  let price = startPrice;
  let sequence = 0;
  for (const date of dates) {
    const session = sessionOn(date);
    if (session === undefined) throw new Error(`no session on ${date}`);
    const openMs = session.open.getTime();
    const closeMs = session.close.getTime();
    const stamps: number[] = [];
    for (let i = 0; i < perSession; i++) {
      stamps.push(
        next() < OUTSIDE_SESSION_SHARE
          ? openMs - 3_600_000 + Math.floor(next() * 3_600_000) // pre-market
          : openMs + Math.floor(next() * (closeMs - openMs)),
      );
    }
    stamps.sort((a, b) => a - b);
    for (const timestamp of stamps) {
      price = walk(price, next, 0.002);
      const size = 1 + Math.floor(next() * next() * 500);
      trades.push({
        symbol,
        price,
        size,
        timestamp,
        tradeId: `${idPrefix}${(sequence++).toString(36).padStart(8, '0')}`,
      });
    }
  }
  return trades;
}

export interface Batch {
  readonly symbolIndex: number;
  readonly symbol: string;
  readonly trades: readonly Trade[];
}

export interface Stream {
  readonly batches: readonly Batch[];
  /** Trades over all batches, redelivered ones counted again. */
  readonly trades: number;
}

/**
 * The batches, round robin over the symbols in time order (each symbol's i-th batch before its i+1-th),
 * `batchSize` trades per symbol per batch, like shards handing each symbol's next trades to the ingest
 * function; every REDELIVERY_EVERY-th batch twice.
 */
export function streamOf(perSymbol: readonly (readonly Trade[])[], batchSize: number): Stream {
  const batches: Batch[] = [];
  let trades = 0;
  let count = 0;
  for (let offset = 0; ; offset += batchSize) {
    let any = false;
    for (let s = 0; s < perSymbol.length; s++) {
      const all = perSymbol[s] ?? [];
      if (offset >= all.length) continue;
      any = true;
      const batch = {
        symbolIndex: s,
        symbol: all[0]?.symbol ?? '',
        trades: all.slice(offset, offset + batchSize),
      };
      batches.push(batch);
      trades += batch.trades.length;
      if (++count % REDELIVERY_EVERY === 0) {
        batches.push(batch);
        trades += batch.trades.length;
      }
    }
    if (!any) break;
  }
  return { batches, trades };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
}

/** `sorted` ascending; the nearest-rank value at or below the p-th percentile. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** Seconds a call of `run` takes: WARM_UP_RUNS untimed calls, then the median of `timed` timed ones. */
export function timeRuns(run: () => void, timed = TIMED_RUNS): number {
  for (let i = 0; i < WARM_UP_RUNS; i++) run();
  const seconds: number[] = [];
  for (let i = 0; i < timed; i++) {
    const start = process.hrtime.bigint();
    run();
    seconds.push(Number(process.hrtime.bigint() - start) / 1e9);
  }
  return median(seconds);
}

/** The `runs` figure for timings taken by `timeRuns(run, timed)`. */
export function runsFigure(timed = TIMED_RUNS): string {
  return `${timed} timed after ${WARM_UP_RUNS} warm-up`;
}

/** p50, p99 and the maximum of lags, in whole milliseconds. */
export function lagSummary(lagsMs: readonly number[]): { p50: number; p99: number; max: number } {
  const sorted = [...lagsMs].sort((a, b) => a - b);
  return {
    p50: Math.round(percentile(sorted, 50)),
    p99: Math.round(percentile(sorted, 99)),
    max: Math.round(sorted.at(-1) ?? 0),
  };
}

/**
 * The figures of a lag measurement: p50, p99 and the slowest in whole milliseconds, and how many probes. Under
 * 101 probes the p99 is the slowest probe itself.
 */
export function lagFigures(lagsMs: readonly number[]): {
  'p50 ms': number;
  'p99 ms': number;
  'max ms': number;
  probes: number;
} {
  const { p50, p99, max } = lagSummary(lagsMs);
  return { 'p50 ms': p50, 'p99 ms': p99, 'max ms': max, probes: lagsMs.length };
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `check` every `pollMs` until it holds; fails loudly after `seconds` (a probe that never lands is a
 * failure, not a number).
 */
export async function until(
  check: () => Promise<boolean>,
  what: string,
  seconds = 30,
  pollMs = 2,
): Promise<void> {
  const deadline = performance.now() + seconds * 1000;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`${what}: not there after ${seconds} s`);
    await sleep(pollMs);
  }
}

/** `rows` as a Markdown table, the first row's keys as the columns. */
export function rowsTable(rows: readonly Readonly<Record<string, number | string>>[]): string {
  const columns = Object.keys(rows[0] ?? {});
  return [
    `| ${columns.join(' | ')} |`,
    `|${columns.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${columns.map((column) => row[column] ?? '').join(' | ')} |`),
  ].join('\n');
}

/**
 * When the module at `moduleUrl` is the one run (`npx tsx scripts/bench/<name>.ts [options]`), runs `bench`
 * with the command line's arguments and prints it.
 */
export async function printWhenMain(moduleUrl: string, bench: Bench): Promise<void> {
  if (process.argv[1] === undefined || moduleUrl !== pathToFileURL(process.argv[1]).href) return;
  for (const result of await bench(process.argv.slice(2))) {
    process.stdout.write(`\n${result.name}\n`);
    for (const [figure, value] of Object.entries(result.figures))
      process.stdout.write(`  ${figure}: ${value}\n`);
    if (result.rows?.length) process.stdout.write(`\n${rowsTable(result.rows)}\n`);
  }
}
