import { readFileSync } from 'node:fs';
import { DynamoBarStore } from '#adapters/dynamo/bar-store';
import type { Trade } from '#domain/market-data/bars';
import { encodeTradeRecord } from '#domain/market-data/trade-records';
import type { MetricPoint } from '#runtime/metric-points';
import { UNIVERSE_CSV } from '../lib/project.ts';
import { parseUniverseCsv } from '../lib/universe.ts';
import { localDocumentClient } from '../local/dynamo.ts';
import { observeMetrics } from '../local/metric-points.ts';
import type { LocalStack } from '../local/stack.ts';
import { localTableName } from '../local/tables.ts';
import { ingestDesignOf, startBenchStack } from './bench-stack.ts';
import { lagFigures, until } from './harness.ts';
import { HOP_METRICS, hopsResult } from './hops.ts';
import { loadUrl } from './http.ts';
import { itemSizes, ledgerItems } from './ingest-units.ts';
import { expectApplied, tradeCounts } from './trade-progress.ts';
import type { BenchResult } from './types.ts';

/** The stack's clock starts at 11:00 New York on a regular Friday, running at real speed. */
const CLOCK_START_MS = Date.parse('2024-11-22T16:00:00Z');
const SYMBOLS = parseUniverseCsv(readFileSync(UNIVERSE_CSV, 'utf8')).map(({ symbol }) => symbol);

function put(stack: LocalStack, trades: readonly Trade[]) {
  stack.trades.put(trades.map((trade) => ({ partitionKey: trade.symbol, data: encodeTradeRecord(trade) })));
}

let sequence = 0;
/** The lag probe's symbol: the other phases never trade it, so its candle's close is the probe's price. */
const PROBE_SYMBOL = 'SPY';
const BACKGROUND_SYMBOLS = SYMBOLS.filter((symbol) => symbol !== PROBE_SYMBOL);

/** `count` trades stamped now on the stack's clock, over every symbol but the probe's in turn. */
function tradesNow(stack: LocalStack, count: number): Trade[] {
  const timestamp = stack.nowMs();
  return Array.from({ length: count }, (_, index) => ({
    symbol: BACKGROUND_SYMBOLS[(sequence + index) % BACKGROUND_SYMBOLS.length] ?? 'AAPL',
    price: 100 + ((sequence + index) % 50) / 10,
    size: 100,
    timestamp,
    tradeId: `bench-${String(sequence++).padStart(12, '0')}`,
  }));
}

/**
 * Sustained ingestion: trades spread over every symbol, put as fast as the pipeline drains them. Fails when any
 * is refused or the count stops moving (trade-progress.ts).
 */
async function sustained(stack: LocalStack): Promise<BenchResult> {
  const total = 100_000;
  const perPut = 20;
  const since = tradeCounts(stack.metrics);
  const started = performance.now();
  for (let offset = 0; offset * perPut < total; offset++) put(stack, tradesNow(stack, perPut));
  await expectApplied(stack.metrics, since, total, stack.trades.flush(), 'sustained ingestion');
  const seconds = (performance.now() - started) / 1000;
  // The ledger's size here is a dense tape's (about 16 trades a second per symbol in the late-print window):
  // what a trading day costs is measured on the simulated market instead (`npm run bench -- session`).
  const ledger = itemSizes((await ledgerItems(stack)).ledgers);
  return {
    name: 'Local pipeline: stream -> ingest handler (candles, prices, Strat state, alerts) -> dynalite (510 symbols, 100,000 trades)',
    figures: {
      'trades/s': Math.round(total / seconds),
      seconds: Number(seconds.toFixed(1)),
      'ledger item bytes, mean / largest': `${ledger.bytesMean} / ${ledger.bytesMax}`,
    },
  };
}

/** Lag from putting a trade to its 1m candle being readable over REST, under a steady background load. */
async function lag(stack: LocalStack): Promise<BenchResult> {
  const headers = { 'X-API-Key': stack.demoKey };
  const lags: number[] = [];
  // 500 trades/s in the background: half of what the local pipeline sustains, so the queue stays short.
  const background = setInterval(() => put(stack, tradesNow(stack, 25)), 50);
  try {
    for (let probe = 0; probe < 100; probe++) {
      const price = 1000 + probe;
      const started = performance.now();
      put(stack, [
        {
          symbol: PROBE_SYMBOL,
          price,
          size: 1,
          timestamp: stack.nowMs(),
          tradeId: `probe-${String(probe).padStart(6, '0')}`,
        },
      ]);
      await until(async () => {
        const response = await fetch(`${stack.restUrl}/candles/${PROBE_SYMBOL}?interval=1m&limit=1`, {
          headers,
        });
        const body = (await response.json()) as { bars: { close: number }[] };
        return body.bars.at(-1)?.close === price;
      }, `candle probe ${probe}`);
      lags.push(performance.now() - started);
    }
  } finally {
    clearInterval(background);
    await stack.trades.flush();
  }
  return {
    name: 'Lag: trade put -> its 1m candle readable at GET /candles (background load 500 trades/s)',
    figures: lagFigures(lags),
  };
}

/** Market data endpoints at their largest: 250 symbols of prices, 5,000 bars of one series. */
async function endpoints(stack: LocalStack): Promise<BenchResult[]> {
  const bars = new DynamoBarStore(localDocumentClient(stack.dynamoEndpoint), localTableName('bars'));
  const first = Date.parse('2024-01-02T14:30:00Z') / 1000;
  await bars.putMany(
    Array.from({ length: 5000 }, (_, index) => ({
      symbol: 'QQQ',
      interval: '1m' as const,
      bar: { time: first + index * 60, open: 1, high: 2, low: 0.5, close: 1.5, volume: 100 },
    })),
  );
  const symbols = SYMBOLS.slice(0, 250).join(',');
  return [
    {
      name: 'GET /prices/latest with 250 symbols (10 connections)',
      figures: await loadUrl(stack, `/prices/latest?symbols=${symbols}`),
    },
    {
      name: 'GET /candles/QQQ?interval=1m&limit=5000 (10 connections)',
      figures: await loadUrl(stack, '/candles/QQQ?interval=1m&limit=5000'),
    },
  ];
}

/**
 * Probes of the alert lag: 200, so that its p99 is the second slowest, not the slowest. With 100 the p99 was
 * the one probe that met the stack's first clock tick (docs/benchmarks.md#ingestion-pipeline).
 */
const ALERT_PROBES = 200;

/**
 * Lag from a crossing trade to its in-force alert being readable at GET /alerts/in-force: ALERT_PROBES symbols
 * get three daily bars (an inside day, then a 2U day), then each in turn a trade above Thursday's high.
 */
async function alertLag(stack: LocalStack): Promise<BenchResult[]> {
  const headers = { 'X-API-Key': stack.demoKey };
  const symbols = SYMBOLS.filter((symbol) => !symbol.endsWith('!')).slice(0, ALERT_PROBES);
  const days: [string, number[]][] = [
    ['2024-11-19', [100, 105, 95, 100]],
    ['2024-11-20', [101, 103, 99, 102]],
    ['2024-11-21', [102, 104, 101, 103]],
  ];
  put(
    stack,
    symbols.flatMap((symbol) =>
      days.flatMap(([day, prices]) =>
        prices.map((price, index) => ({
          symbol,
          price,
          size: 1,
          timestamp: Date.parse(`${day}T14:30:00Z`) + index * 1000,
          tradeId: `history-${day}-${index}`,
        })),
      ),
    ),
  );
  await stack.trades.flush();
  const lags: number[] = [];
  const hops: MetricPoint[] = [];
  const stopObserving = observeMetrics((point) => {
    if (HOP_METRICS.includes(point.id)) hops.push(point);
  });
  for (const symbol of symbols) {
    const started = performance.now();
    put(stack, [
      {
        symbol,
        price: 104.5,
        size: 1,
        // Stamped now on the stack's clock (that Friday): the hops are timed from the trade's time.
        timestamp: stack.nowMs(),
        tradeId: 'crossing',
      },
    ]);
    await until(async () => {
      const response = await fetch(
        `${stack.restUrl}/alerts/in-force?symbols=${encodeURIComponent(symbol)}&timeframe=D`,
        { headers },
      );
      return ((await response.json()) as { items: unknown[] }).items.length > 0;
    }, `alert probe ${symbol}`);
    lags.push(performance.now() - started);
  }
  stopObserving();
  return [
    {
      name: 'Lag: crossing trade put -> its alert readable at GET /alerts/in-force',
      figures: lagFigures(lags),
    },
    hopsResult(`a crossing trade to its in-force alert, ${ALERT_PROBES} symbols one at a time`, hops, [
      ['trade -> alert readable at GET /alerts/in-force (the REST read, polled)', lags],
    ]),
  ];
}

const PHASES = ['alerts', 'sustained', 'lag', 'endpoints'] as const;

/** `--phases sustained,lag` runs only those phases (in their order); all by default. */
function phasesOf(options: readonly string[]): Set<string> {
  const at = options.indexOf('--phases');
  const named = at === -1 ? [...PHASES] : (options[at + 1] ?? '').split(',');
  const unknown = named.filter((name) => !(PHASES as readonly string[]).includes(name));
  if (unknown.length > 0)
    throw new Error(`pipeline: unknown phase(s) ${unknown.join(', ')}; known: ${PHASES.join(', ')}`);
  return new Set(named);
}

export async function benchPipeline(options: readonly string[] = []): Promise<BenchResult[]> {
  const phases = phasesOf(options);
  const stack = await startBenchStack(new Date(CLOCK_START_MS), ingestDesignOf(options));
  try {
    const results: BenchResult[] = [];
    // The alert probe first: its trades (19-22 November, before the clock) must not be older than the rest.
    // Each phase's figures go to stderr as soon as it is done: a later phase that fails loses none.
    const done = (phase: BenchResult[]) => {
      for (const result of phase) process.stderr.write(`${result.name}: ${JSON.stringify(result.figures)}\n`);
      results.push(...phase);
    };
    if (phases.has('alerts')) done(await alertLag(stack));
    if (phases.has('sustained')) done([await sustained(stack)]);
    if (phases.has('lag')) done([await lag(stack)]);
    if (phases.has('endpoints')) done(await endpoints(stack));
    return results;
  } finally {
    await stack.stop();
  }
}
