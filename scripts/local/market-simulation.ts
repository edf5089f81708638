import type { Instrument } from '#domain/market-data/instruments';
import type { LedgerStore } from '#domain/market-data/ports';
import { encodeTradeRecord } from '#domain/market-data/trade-records';
import { FEED_CONNECTOR_SETTINGS } from '#use-cases/feed-connector';
import type { HistoryTarget } from '../lib/history-import.ts';
import { createMarketModel } from '../simulator/model.ts';
import {
  backfillOrder,
  backfillProgress,
  backfillSymbols,
  lastHistoryPrices,
  planHistory,
} from './history-backfill.ts';
import type { LocalTradeStream } from './trade-stream.ts';

export interface MarketSimulationOptions {
  readonly seed: number;
  readonly instruments: readonly Instrument[];
  /** The service clock, Unix ms. */
  readonly nowMs: () => number;
  readonly stream: LocalTradeStream;
  readonly ledgers: LedgerStore;
  /** The tables the first-start history is imported into (docs/backfill.md). */
  readonly history: HistoryTarget;
  readonly log: (line: string) => void;
  /** Real milliseconds between two steps of the simulation. */
  readonly tickMs?: number;
  /** Aborted when the stack stops: the start and the history import give up at their next step. */
  readonly signal?: AbortSignal;
}

export interface MarketSimulation {
  /** Resolves when every symbol has its history. */
  readonly backfilled: Promise<void>;
  stop(): Promise<void>;
}

/**
 * A step hands over the trades printed since the one before, as often as the feed connector puts what it
 * received on AWS: a trade waits no longer here than there before the stream has it.
 */
const DEFAULT_TICK_MS = FEED_CONNECTOR_SETTINGS.flushIntervalMs;
/**
 * How long a stop waits for the history chunk being written: then it leaves it (the import is made to be
 * interrupted anywhere: scripts/local/history-backfill.ts, functions/use-cases/import-history.ts), so a
 * Ctrl-C stops the stack within seconds at any point.
 */
const STOP_GRACE_MS = 500;
const PROGRESS_EVERY = 25;
/** Symbols whose history is imported together (each chunk is one daily and one minute file). */
const CHUNK = 5;

/**
 * The local stack's market: every tracked symbol trades on the service clock during sessions,
 * through the same trades stream and ingest handler as real trades. A symbol without a ledger (first start)
 * first gets its history; it trades live from then on. A restart continues from the stored prices.
 */
export async function startMarketSimulation(options: MarketSimulationOptions): Promise<MarketSimulation> {
  const symbols = options.instruments.map(({ symbol }) => symbol);
  const stored = await options.ledgers.getMany(symbols);
  const ready = new Set(stored.keys());
  const missing = options.instruments.filter(({ symbol }) => !ready.has(symbol));
  const startMs = options.nowMs();

  const startPrices = new Map<string, number>();
  for (const { ledger } of stored.values())
    if (ledger.price) startPrices.set(ledger.symbol, ledger.price.price);
  const plan =
    missing.length > 0
      ? planHistory({ seed: options.seed, instruments: missing, nowMs: startMs })
      : undefined;
  if (plan)
    for (const [symbol, price] of await lastHistoryPrices(plan, options.signal))
      startPrices.set(symbol, price);

  const model = createMarketModel({ seed: options.seed, symbols: options.instruments, startMs, startPrices });
  const timer = setInterval(() => {
    // Back-pressure: while ingestion is behind, the market waits; its next tick covers the time since.
    if (!options.stream.hasRoom()) return;
    const trades = model.advance(options.nowMs()).filter((trade) => ready.has(trade.symbol));
    if (trades.length > 0) {
      options.stream.put(
        trades.map((trade) => ({ partitionKey: trade.symbol, data: encodeTradeRecord(trade) })),
      );
    }
  }, options.tickMs ?? DEFAULT_TICK_MS);

  let stopped = false;
  const backfill = async () => {
    if (!plan) return;
    const order = backfillOrder(missing);
    options.log(
      `History: writing about 13 months for ${order.length} symbols in the background (futures and ETFs first)`,
    );
    const started = Date.now();
    let items = 0;
    for (let start = 0; start < order.length; start += CHUNK) {
      if (stopped || options.signal?.aborted) return;
      const chunk = order.slice(start, start + CHUNK);
      items += await backfillSymbols(plan, chunk, options.history, options.nowMs, options.signal);
      if (stopped || options.signal?.aborted) return;
      for (const symbol of chunk) ready.add(symbol);
      const done = start + chunk.length;
      if (done % PROGRESS_EVERY === 0 || done === order.length) {
        options.log(backfillProgress({ done, total: order.length, items, elapsedMs: Date.now() - started }));
      }
    }
  };
  const backfilled = backfill();
  backfilled.catch((error: unknown) => {
    // Writes left in flight by a stop fail against the stopped DynamoDB: not a failure of the backfill.
    if (stopped || options.signal?.aborted) return;
    options.log(`History backfill failed: ${error instanceof Error ? error.message : error}`);
  });

  return {
    backfilled,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      let grace: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        backfilled.catch(() => undefined),
        new Promise<void>((resolve) => {
          grace = setTimeout(resolve, STOP_GRACE_MS);
        }),
      ]);
      clearTimeout(grace);
    },
  };
}
