/**
 * Benchmark of the Strat engine (functions/domain/strat/; strat-rules sections 2-7), on one core, after a
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
import { pathToFileURL } from 'node:url';
import { foldTrades, type SymbolLedger, type Trade } from '#domain/aggregation';
import { sessionOn, sessionsBetween } from '#domain/calendar';
import { deriveSymbolState, stateKey } from '#domain/strat/setups';
import { parseUniverseCsv } from '#domain/universe';
import { UNIVERSE_CSV } from '../lib/project.ts';
import type { BenchResult } from './types.ts';

const REDELIVERY_EVERY = 50;
const OUTSIDE_SESSION_SHARE = 0.01;
const WARM_UP_RUNS = 2;
const TIMED_RUNS = 7;
const HISTORY_FROM = '2019-01-02';
const HISTORY_TO = '2024-05-28';
const HISTORY_TRADES_PER_SESSION = 6;
const LIVE_SESSIONS = ['2024-05-29', '2024-05-30', '2024-05-31', '2024-06-03', '2024-06-04'];
/** During the last live session: every timeframe has its CC. */
const STATE_NOW_MS = Date.parse('2024-06-04T18:00:00Z');

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

/** A random-walk price, stepped per trade. */
function walk(price: number, next: () => number, scale: number): number {
  return Math.max(0.01, Math.round(price * (1 + (next() - 0.5) * scale) * 100) / 100);
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

interface Batch {
  readonly symbolIndex: number;
  readonly symbol: string;
  readonly trades: readonly Trade[];
}

interface Stream {
  readonly batches: readonly Batch[];
  readonly trades: number;
}

/** One symbol's live trades: `perSession` a session, sorted, a random walk from its history's last price. */
function liveTrades(symbol: string, startPrice: number, perSession: number, next: () => number): Trade[] {
  const trades: Trade[] = [];
  let price = startPrice;
  let sequence = 0;
  for (const date of LIVE_SESSIONS) {
    const session = sessionOn(date);
    if (session === undefined) throw new Error(`no session on ${date}`);
    const openMs = session.open.getTime();
    const closeMs = session.close.getTime();
    const stamps: number[] = [];
    for (let i = 0; i < perSession; i++) {
      stamps.push(
        next() < OUTSIDE_SESSION_SHARE
          ? openMs - 3_600_000 + Math.floor(next() * 3_600_000)
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
        tradeId: `l${(sequence++).toString(36).padStart(8, '0')}`,
      });
    }
  }
  return trades;
}

/** Round robin over the symbols in time order, `batchSize` trades per symbol per batch. */
function streamOf(perSymbol: readonly Trade[][], batchSize: number): Stream {
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

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
}

function timeRuns(run: () => void, timed = TIMED_RUNS): number {
  for (let i = 0; i < WARM_UP_RUNS; i++) run();
  const seconds: number[] = [];
  for (let i = 0; i < timed; i++) {
    const start = process.hrtime.bigint();
    run();
    seconds.push(Number(process.hrtime.bigint() - start) / 1e9);
  }
  return median(seconds);
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
    liveTrades(symbol, prepared.lastPrices[s] ?? 100, scenario.tradesPerSession(s), next),
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
      runs: `${TIMED_RUNS} timed after ${WARM_UP_RUNS} warm-up`,
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
      runs: `15 timed after ${WARM_UP_RUNS} warm-up`,
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

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const result of await benchStrat()) {
    process.stdout.write(`\n${result.name}\n`);
    for (const [figure, value] of Object.entries(result.figures))
      process.stdout.write(`  ${figure}: ${value}\n`);
  }
}
