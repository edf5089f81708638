/**
 * Benchmark of the candle aggregation core (functions/domain/aggregation.ts): trades per second through
 * `foldTrades` (latest price + the ten intervals), against a loop that only reads each trade's fields, on
 * one core, after a warm-up, median of several runs.
 *
 * The streams are synthetic but shaped like the ingest path's: 500 symbols, trades in time order through
 * five sessions (Wednesday 2024-05-29 to Tuesday 2024-06-04: a weekend, a week and a month roll), folded
 * in per-symbol batches of a few hundred trades with the ledger carried between batches, a few pre-market
 * and after-hours prints, and some batches delivered twice (at-least-once redelivery).
 *
 * `npm run bench -- aggregation`, or on its own: `npx tsx scripts/bench/aggregation.ts`.
 */
import { pathToFileURL } from 'node:url';
import { foldTrades, type SymbolLedger, type Trade } from '#domain/aggregation';
import { sessionOn } from '#domain/calendar';
import type { BenchResult } from './types.ts';

const BATCH_SIZE = 250;
/** Every REDELIVERY_EVERY-th batch is delivered a second time right after the first. */
const REDELIVERY_EVERY = 50;
const OUTSIDE_SESSION_SHARE = 0.01;
const WARM_UP_RUNS = 2;
const TIMED_RUNS = 7;

interface Batch {
  readonly symbolIndex: number;
  readonly symbol: string;
  readonly trades: readonly Trade[];
}

interface Stream {
  readonly batches: readonly Batch[];
  readonly trades: number;
  readonly symbols: number;
  readonly sessions: number;
}

/** A small deterministic generator (mulberry32), so every run folds the same stream. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function sessionBounds(dates: readonly string[]): { openMs: number; closeMs: number }[] {
  return dates.map((date) => {
    const session = sessionOn(date);
    if (session === undefined) throw new Error(`no session on ${date}`);
    return { openMs: session.open.getTime(), closeMs: session.close.getTime() };
  });
}

/** One symbol's trades through the sessions: `perSession` trades a session, sorted, a random-walk price. */
function symbolTrades(
  symbol: string,
  dates: readonly string[],
  perSession: number,
  next: () => number,
): Trade[] {
  const trades: Trade[] = [];
  let price = 20 + next() * 480;
  let sequence = 0;
  for (const { openMs, closeMs } of sessionBounds(dates)) {
    const stamps: number[] = [];
    for (let i = 0; i < perSession; i++) {
      const outside = next() < OUTSIDE_SESSION_SHARE;
      stamps.push(
        outside
          ? openMs - 3_600_000 + Math.floor(next() * 3_600_000) // pre-market
          : openMs + Math.floor(next() * (closeMs - openMs)),
      );
    }
    stamps.sort((a, b) => a - b);
    for (const timestamp of stamps) {
      price = Math.max(0.01, Math.round(price * (1 + (next() - 0.5) * 0.002) * 100) / 100);
      const size = 1 + Math.floor(next() * next() * 500);
      trades.push({ symbol, price, size, timestamp, tradeId: (sequence++).toString(36).padStart(8, '0') });
    }
  }
  return trades;
}

interface Scenario {
  readonly name: string;
  readonly symbols: number;
  readonly dates: readonly string[];
  /** Trades a session of the i-th symbol. */
  readonly tradesPerSession: (symbolIndex: number) => number;
  readonly seed: number;
}

/**
 * The batches, round robin over the symbols in time order (each symbol's i-th batch before its i+1-th),
 * like shards handing each symbol's next few hundred trades to the ingest function.
 */
function streamOf(scenario: Scenario): Stream {
  const next = random(scenario.seed);
  const perSymbol: Trade[][] = [];
  for (let s = 0; s < scenario.symbols; s++) {
    const symbol = `SYM${s.toString().padStart(4, '0')}`;
    perSymbol.push(symbolTrades(symbol, scenario.dates, scenario.tradesPerSession(s), next));
  }
  const batches: Batch[] = [];
  let trades = 0;
  let batchCount = 0;
  for (let offset = 0; ; offset += BATCH_SIZE) {
    let any = false;
    for (let s = 0; s < scenario.symbols; s++) {
      const all = perSymbol[s] ?? [];
      if (offset >= all.length) continue;
      any = true;
      const batch = {
        symbolIndex: s,
        symbol: all[0]?.symbol ?? '',
        trades: all.slice(offset, offset + BATCH_SIZE),
      };
      batches.push(batch);
      trades += batch.trades.length;
      if (++batchCount % REDELIVERY_EVERY === 0) {
        batches.push(batch);
        trades += batch.trades.length;
      }
    }
    if (!any) break;
  }
  return { batches, trades, symbols: scenario.symbols, sessions: scenario.dates.length };
}

interface FoldTotals {
  applied: number;
  duplicates: number;
  outsideSession: number;
  invalid: number;
  completed: number;
}

function foldAll(stream: Stream): FoldTotals {
  const ledgers: (SymbolLedger | undefined)[] = new Array(stream.symbols).fill(undefined);
  const totals: FoldTotals = { applied: 0, duplicates: 0, outsideSession: 0, invalid: 0, completed: 0 };
  for (const batch of stream.batches) {
    const result = foldTrades(ledgers[batch.symbolIndex], batch.symbol, batch.trades);
    ledgers[batch.symbolIndex] = result.ledger;
    totals.applied += result.applied;
    totals.duplicates += result.duplicates;
    totals.outsideSession += result.outsideSession;
    totals.invalid += result.invalid;
    totals.completed += result.completed.length;
  }
  return totals;
}

let sink = 0;

/** The floor: read each trade's price and size, nothing else. */
function readAll(stream: Stream): number {
  let sum = 0;
  for (const batch of stream.batches) {
    for (const trade of batch.trades) sum += trade.price * trade.size;
  }
  return sum;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
}

function timeRuns(run: () => void): number {
  for (let i = 0; i < WARM_UP_RUNS; i++) run();
  const seconds: number[] = [];
  for (let i = 0; i < TIMED_RUNS; i++) {
    const start = process.hrtime.bigint();
    run();
    seconds.push(Number(process.hrtime.bigint() - start) / 1e9);
  }
  return median(seconds);
}

function measure(name: string, stream: Stream): BenchResult {
  let totals: FoldTotals | undefined;
  const foldSeconds = timeRuns(() => {
    totals = foldAll(stream);
  });
  const readSeconds = timeRuns(() => {
    sink += readAll(stream);
  });
  const foldRate = stream.trades / foldSeconds;
  const readRate = stream.trades / readSeconds;
  return {
    name,
    figures: {
      symbols: stream.symbols,
      sessions: stream.sessions,
      batches: stream.batches.length,
      'trades per batch (mean)': Math.round(stream.trades / stream.batches.length),
      'trades folded per run': stream.trades,
      applied: totals?.applied ?? 0,
      'duplicates (redelivered batches)': totals?.duplicates ?? 0,
      'outside session': totals?.outsideSession ?? 0,
      'completed bars': totals?.completed ?? 0,
      'foldTrades trades/s (median)': Math.round(foldRate),
      'foldTrades ns/trade': Number(((foldSeconds / stream.trades) * 1e9).toFixed(1)),
      'read-only loop trades/s (median)': Math.round(readRate),
      'read-only / foldTrades': Number((readRate / foldRate).toFixed(1)),
      runs: `${TIMED_RUNS} timed after ${WARM_UP_RUNS} warm-up`,
    },
  };
}

const FIVE_SESSIONS = ['2024-05-29', '2024-05-30', '2024-05-31', '2024-06-03', '2024-06-04'];

const SCENARIOS: readonly Scenario[] = [
  {
    // ~1M trades: symbol i trades about 7,000 / (i + 1)^0.6 times a session (18 a minute down to 1 in 4).
    name: 'foldTrades, realistic mix (500 symbols, liquid to thin, 5 sessions)',
    symbols: 500,
    dates: FIVE_SESSIONS,
    tradesPerSession: (s) => Math.max(20, Math.round(7_000 / (s + 1) ** 0.6)),
    seed: 1,
  },
  {
    // Nearly every trade rolls the 1m bar: the slow path.
    name: 'foldTrades, roll-heavy (500 symbols, a trade a minute each, 5 sessions)',
    symbols: 500,
    dates: FIVE_SESSIONS,
    tradesPerSession: () => 390,
    seed: 2,
  },
  {
    // ~26 trades a minute per symbol: mostly the fast path.
    name: 'foldTrades, liquid (100 symbols, ~26 trades a minute each, 1 session)',
    symbols: 100,
    dates: ['2024-05-31'],
    tradesPerSession: () => 10_000,
    seed: 3,
  },
];

export async function benchAggregation(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  for (const scenario of SCENARIOS) results.push(measure(scenario.name, streamOf(scenario)));
  if (sink === 42) process.stdout.write('');
  return results;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const result of await benchAggregation()) {
    process.stdout.write(`\n${result.name}\n`);
    for (const [figure, value] of Object.entries(result.figures))
      process.stdout.write(`  ${figure}: ${value}\n`);
  }
}
