/**
 * Benchmark of the Strat engine (functions/domain/strat/; docs/strat.md), on one core, after a
 * warm-up, median of several runs:
 *
 * 1. Trades per second through the full per-trade update: `foldTrades` (latest price, the ten intervals)
 *    with the in-force checks on the nine Strat timeframes, for the whole universe (511 symbols). Every
 *    ledger starts from a backfilled history (2019 to the day before), so every timeframe has a setup row
 *    and its C1 thresholds armed, as in production. The live streams are shaped like
 *    scripts/bench/aggregation.ts's: five sessions (Wednesday 2024-05-29 to Tuesday 2024-06-04: a weekend,
 *    a week and a month roll), per-symbol batches carried between calls, some pre-market prints, some
 *    batches delivered twice.
 * 2. Cold start: `deriveSymbolState` for 512 symbols from stored ledgers (as read back from the table: a
 *    JSON round trip), with and without the parse.
 *
 * `npm run bench -- strat` (once registered in run.ts), or on its own: `npx tsx scripts/bench/strat.ts`.
 */
import { readFileSync } from 'node:fs';
import { sessionsBetween } from '#domain/calendar/sessions';
import type { Trade } from '#domain/market-data/bars';
import type { SymbolLedger } from '#domain/market-data/ledger';
import { deriveSymbolState, stateKey } from '#domain/strat/setups';
import { foldTrades } from '#domain/strat/trade-fold';
import { UNIVERSE_CSV } from '../lib/project.ts';
import { parseUniverseCsv } from '../lib/universe.ts';
import type { Stream } from './harness.ts';
import { printWhenMain, random, runsFigure, sessionTrades, streamOf, timeRuns, walk } from './harness.ts';
import type { BenchResult } from './types.ts';

const HISTORY_FROM = '2019-01-02';
const HISTORY_TO = '2024-05-28';
const HISTORY_TRADES_PER_SESSION = 6;
const LIVE_SESSIONS = ['2024-05-29', '2024-05-30', '2024-05-31', '2024-06-03', '2024-06-04'];
/** During the last live session: every timeframe has its CC. */
const STATE_NOW_MS = Date.parse('2024-06-04T18:00:00Z');

interface Universe {
  readonly symbols: readonly string[];
  readonly sectors: ReadonlyMap<string, string>;
}

function loadUniverse(): Universe {
  const instruments = parseUniverseCsv(readFileSync(UNIVERSE_CSV, 'utf8'));
  return {
    symbols: instruments.map(({ symbol }) => symbol),
    sectors: new Map(instruments.map(({ symbol, sector }) => [symbol, sector])),
  };
}

/**
 * One symbol's history: a few trades a session at sorted random times, so every interval has bars. Folded
 * in one call, like the first-start backfill. Returns the ledger and the last price.
 */
function backfill(symbol: string, next: () => number): { ledger: SymbolLedger; price: number } {
  const trades: Trade[] = [];
  let price = 20 + next() * 480;
  let sequence = 0;
  for (const session of sessionsBetween(HISTORY_FROM, HISTORY_TO)) {
    const openMs = session.open.getTime();
    const spanMs = session.close.getTime() - openMs;
    const stamps = Array.from(
      { length: HISTORY_TRADES_PER_SESSION },
      () => openMs + Math.floor(next() * spanMs),
    );
    stamps.sort((a, b) => a - b);
    for (const timestamp of stamps) {
      price = walk(price, next, 0.01);
      trades.push({
        symbol,
        price,
        size: 100,
        timestamp,
        tradeId: `h${(sequence++).toString(36).padStart(8, '0')}`,
      });
    }
  }
  return { ledger: foldTrades(undefined, symbol, trades).ledger, price };
}

interface FoldTotals {
  applied: number;
  inForce: number;
  completed: number;
}

function foldAll(stream: Stream, start: readonly SymbolLedger[]): FoldTotals {
  const ledgers = [...start];
  const totals: FoldTotals = { applied: 0, inForce: 0, completed: 0 };
  for (const batch of stream.batches) {
    const result = foldTrades(ledgers[batch.symbolIndex], batch.symbol, batch.trades);
    ledgers[batch.symbolIndex] = result.ledger;
    totals.applied += result.applied;
    totals.inForce += result.inForce.length;
    totals.completed += result.completed.length;
  }
  return totals;
}

interface Prepared {
  readonly universe: Universe;
  readonly ledgers: readonly SymbolLedger[];
  readonly lastPrices: readonly number[];
  readonly historySeconds: number;
  readonly historyTrades: number;
}

function prepare(): Prepared {
  const universe = loadUniverse();
  const next = random(11);
  const ledgers: SymbolLedger[] = [];
  const lastPrices: number[] = [];
  const started = process.hrtime.bigint();
  for (const symbol of universe.symbols) {
    const { ledger, price } = backfill(symbol, next);
    ledgers.push(ledger);
    lastPrices.push(price);
  }
  const historySeconds = Number(process.hrtime.bigint() - started) / 1e9;
  const historyTrades =
    universe.symbols.length * sessionsBetween(HISTORY_FROM, HISTORY_TO).length * HISTORY_TRADES_PER_SESSION;
  return { universe, ledgers, lastPrices, historySeconds, historyTrades };
}

interface Scenario {
  readonly name: string;
  /** The >= 500,000 trades/s target applies (the realistic batch sizes of scripts/bench/aggregation.ts). */
  readonly targeted: boolean;
  readonly tradesPerSession: (symbolIndex: number) => number;
  readonly batchSize: number;
  readonly seed: number;
}

const SCENARIOS: readonly Scenario[] = [
  {
    // ~1M trades: symbol i trades about 7,000 / (i + 1)^0.6 times a session (18 a minute down to 1 in 4).
    name: 'Strat fold (foldTrades + in-force), realistic mix: 511 symbols, 5 sessions, batches of 250',
    targeted: true,
    tradesPerSession: (s) => Math.max(20, Math.round(7_000 / (s + 1) ** 0.6)),
    batchSize: 250,
    seed: 1,
  },
  {
    // The same mix cut thin: a shard's batch spread over many symbols gives each fold a few trades.
    name: 'Strat fold (foldTrades + in-force), realistic mix in small batches: 511 symbols, 5 sessions, batches of 10 (informative: the per-call cost of copying a ledger dominates)',
    targeted: false,
    tradesPerSession: (s) => Math.max(20, Math.round(7_000 / (s + 1) ** 0.6)),
    batchSize: 10,
    seed: 1,
  },
  {
    // Nearly every trade rolls the 15m bar somewhere: a trade a minute per symbol.
    name: 'Strat fold (foldTrades + in-force), roll-heavy: 511 symbols, a trade a minute each, 5 sessions',
    targeted: true,
    tradesPerSession: () => 390,
    batchSize: 250,
    seed: 2,
  },
];

function measureFold(prepared: Prepared, scenario: Scenario): BenchResult {
  const next = random(scenario.seed);
  const perSymbol = prepared.universe.symbols.map((symbol, s) =>
    sessionTrades(
      symbol,
      LIVE_SESSIONS,
      scenario.tradesPerSession(s),
      prepared.lastPrices[s] ?? 100,
      next,
      'l',
    ),
  );
  const stream = streamOf(perSymbol, scenario.batchSize);
  let totals: FoldTotals | undefined;
  const seconds = timeRuns(() => {
    totals = foldAll(stream, prepared.ledgers);
  });
  const rate = stream.trades / seconds;
  return {
    name: scenario.name,
    figures: {
      symbols: prepared.universe.symbols.length,
      'Strat timeframes': 9,
      sessions: LIVE_SESSIONS.length,
      batches: stream.batches.length,
      'trades folded per run': stream.trades,
      applied: totals?.applied ?? 0,
      'completed bars': totals?.completed ?? 0,
      'in-force alerts fired': totals?.inForce ?? 0,
      'trades/s (median)': Math.round(rate),
      'ns/trade': Number(((seconds / stream.trades) * 1e9).toFixed(1)),
      target: scenario.targeted ? '>= 500,000 trades/s' : 'none (informative)',
      runs: runsFigure(),
    },
  };
}

function measureColdStart(prepared: Prepared): BenchResult {
  // 512 ledgers: the universe's 511 and one more (a copy under another name).
  const first = prepared.ledgers[0] as SymbolLedger;
  const ledgers = [...prepared.ledgers, { ...first, symbol: 'ZZZZ' }];
  const stored = ledgers.map((ledger) => JSON.stringify(ledger));
  const sectorOf = (symbol: string) => prepared.universe.sectors.get(symbol) ?? '';
  let rows = 0;
  let keyLength = 0;
  const deriveSeconds = timeRuns(() => {
    rows = 0;
    for (const ledger of ledgers)
      rows += deriveSymbolState(ledger, STATE_NOW_MS, sectorOf(ledger.symbol)).setups.length;
  }, 15);
  const parseDeriveSeconds = timeRuns(() => {
    for (const item of stored) {
      const ledger = JSON.parse(item) as SymbolLedger;
      deriveSymbolState(ledger, STATE_NOW_MS, sectorOf(ledger.symbol));
    }
  }, 15);
  const keySeconds = timeRuns(() => {
    keyLength = 0;
    for (const ledger of ledgers)
      keyLength += stateKey(deriveSymbolState(ledger, STATE_NOW_MS, sectorOf(ledger.symbol))).length;
  }, 15);
  const bytes = stored.reduce((sum, item) => sum + item.length, 0);
  return {
    name: 'Strat cold start: deriveSymbolState for 512 symbols from stored ledgers',
    figures: {
      symbols: ledgers.length,
      'setup rows': rows,
      'stored ledger size, mean (JSON bytes)': Math.round(bytes / ledgers.length),
      'deriveSymbolState, all symbols (ms, median)': Number((deriveSeconds * 1e3).toFixed(2)),
      'JSON.parse + deriveSymbolState, all symbols (ms, median)': Number(
        (parseDeriveSeconds * 1e3).toFixed(2),
      ),
      'deriveSymbolState + stateKey, all symbols (ms, median)': Number((keySeconds * 1e3).toFixed(2)),
      'state key bytes (all)': keyLength,
      target: '< 2 s',
      'history backfilled first (trades, s)': `${prepared.historyTrades} trades in ${prepared.historySeconds.toFixed(1)} s, ${HISTORY_FROM} to ${HISTORY_TO}, one foldTrades call per symbol`,
      runs: runsFigure(15),
    },
  };
}

export async function benchStrat(): Promise<BenchResult[]> {
  const prepared = prepare();
  const results: BenchResult[] = [];
  for (const scenario of SCENARIOS) results.push(measureFold(prepared, scenario));
  results.push(measureColdStart(prepared));
  return results;
}

await printWhenMain(import.meta.url, benchStrat);
