/**
 * Benchmark of the candle aggregation core (functions/domain/market-data/candle-fold.ts): trades per second through
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

import type { Trade } from '#domain/market-data/bars';
import type { SymbolLedger } from '#domain/market-data/ledger';
import { foldTrades } from '#domain/strat/trade-fold';
import type { Stream } from './harness.ts';
import { printWhenMain, random, runsFigure, sessionTrades, streamOf, timeRuns } from './harness.ts';
import type { BenchResult } from './types.ts';

const BATCH_SIZE = 250;

interface Scenario {
  readonly name: string;
  readonly symbols: number;
  readonly dates: readonly string[];
  /** Trades a session of the i-th symbol. */
  readonly tradesPerSession: (symbolIndex: number) => number;
  readonly seed: number;
}

interface ScenarioStream extends Stream {
  readonly symbols: number;
  readonly sessions: number;
}

/** The scenario's trades, symbol after symbol from one seeded generator, in batches of BATCH_SIZE. */
function scenarioStream(scenario: Scenario): ScenarioStream {
  const next = random(scenario.seed);
  const perSymbol: Trade[][] = [];
  for (let s = 0; s < scenario.symbols; s++) {
    const symbol = `SYM${s.toString().padStart(4, '0')}`;
    perSymbol.push(
      sessionTrades(symbol, scenario.dates, scenario.tradesPerSession(s), 20 + next() * 480, next),
    );
  }
  return { ...streamOf(perSymbol, BATCH_SIZE), symbols: scenario.symbols, sessions: scenario.dates.length };
}

interface FoldTotals {
  applied: number;
  duplicates: number;
  outsideSession: number;
  invalid: number;
  completed: number;
}

function foldAll(stream: ScenarioStream): FoldTotals {
  const ledgers: (SymbolLedger | undefined)[] = new Array(stream.symbols).fill(undefined);
  const totals: FoldTotals = { applied: 0, duplicates: 0, outsideSession: 0, invalid: 0, completed: 0 };
  for (const batch of stream.batches) {
    const result = foldTrades(ledgers[batch.symbolIndex], batch.symbol, batch.trades);
    ledgers[batch.symbolIndex] = result.ledger;
    totals.applied += result.applied;
    totals.duplicates += result.duplicates + result.late;
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

function measure(name: string, stream: ScenarioStream): BenchResult {
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
      'refused as duplicate or late (redelivered batches)': totals?.duplicates ?? 0,
      'outside session': totals?.outsideSession ?? 0,
      'completed bars': totals?.completed ?? 0,
      'foldTrades trades/s (median)': Math.round(foldRate),
      'foldTrades ns/trade': Number(((foldSeconds / stream.trades) * 1e9).toFixed(1)),
      'read-only loop trades/s (median)': Math.round(readRate),
      'read-only / foldTrades': Number((readRate / foldRate).toFixed(1)),
      runs: runsFigure(),
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
  for (const scenario of SCENARIOS) results.push(measure(scenario.name, scenarioStream(scenario)));
  if (sink === 42) process.stdout.write('');
  return results;
}

await printWhenMain(import.meta.url, benchAggregation);
