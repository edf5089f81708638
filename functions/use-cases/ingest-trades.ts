import pLimit from 'p-limit';
import { TRADE_TIMING } from '#contracts/ingestion';
import { type Bar, groupBySymbol, type Trade, type TradeMark } from '#domain/market-data/bars';
import type { SymbolLedger } from '#domain/market-data/ledger';
import { periodAt } from '#domain/market-data/periods';
import type { BarStore, LedgerStore, PriceStore, Series } from '#domain/market-data/ports';
import type { SymbolPrice } from '#domain/market-data/prices';
import {
  breakFeedEvent,
  type InForceAlertBody,
  inForceFeedEvent,
  type SimultaneousBreakBody,
} from '#domain/strat/alerts';
import {
  DEFAULT_BREAK_WINDOW_MS,
  FUTURES_SYMBOLS,
  isFuturesSymbol,
  simultaneousBreaks,
} from '#domain/strat/breaks';
import type { InForceEvent } from '#domain/strat/in-force';
import type { EventFeed, SetupStore, StateStore } from '#domain/strat/ports';
import { isTimeframe, TIMEFRAME_INTERVAL } from '#domain/strat/timeframes';
import { foldTrades } from '#domain/strat/trade-fold';
import { type LedgerAtVersion, syncStates } from './sync-states.ts';

/**
 * The derived writes of one ledger commit: the bars it completed, its new latest price and the in-force alerts
 * it fired. Stored with the ledger (its `pending`), applied after the commit, and applied again when the batch
 * that committed them is delivered again (the writer may have stopped in between).
 */
export interface CommittedWrites {
  readonly bars: readonly (Series & { bar: Bar })[];
  readonly price?: SymbolPrice;
  readonly alerts: readonly InForceEvent[];
  /** The last trade of the symbol in the batch that committed them: its redelivery has it again. */
  readonly batchMark: TradeMark;
}

export interface IngestPorts {
  readonly ledgers: LedgerStore<CommittedWrites>;
  readonly bars: BarStore;
  readonly prices: PriceStore;
  readonly alerts: EventFeed<InForceAlertBody>;
  readonly breaks: EventFeed<SimultaneousBreakBody>;
  readonly states: StateStore;
  readonly setups: SetupStore;
  /** The sector of a symbol, for its setup rows. */
  readonly sectorOf: (symbol: string) => string;
  /** The service clock, Unix ms: "now" for the derived states, and what a trade may not be stamped after. */
  readonly nowMs: () => number;
  readonly breakWindowMs?: number;
}

/** Why a trade was not applied (docs/candles.md#late-and-early-prints). */
export type RefusalReason = 'duplicate' | 'late' | 'future' | 'outside_session' | 'invalid' | 'unpriced';

export interface IngestOutcome {
  /** Trades applied in full. */
  readonly applied: number;
  /** Late prints folded into the forming bars' high, low and volume. */
  readonly latePrints: number;
  /** Trades not applied, by reason: every trade in is applied, folded or counted here. */
  readonly refused: Readonly<Record<RefusalReason, number>>;
  /** Trades stamped after the service clock's tolerance: the caller dead-letters them for a redrive. */
  readonly future: readonly Trade[];
  readonly alerts: number;
  readonly breaks: number;
  readonly statesChanged: number;
  /** Bars completed by the commits (and recoveries) of the batch. */
  readonly candlesCompleted: number;
  /** Symbols whose committed writes were applied again (a redelivery after a stop mid-batch). */
  readonly recovered: number;
  /** Symbols whose ledger another writer changed meanwhile: their trades must be delivered again. */
  readonly failedSymbols: readonly string[];
}

/** Ledger writes in flight at once. */
const LEDGER_WRITE_CONCURRENCY = 16;

/** A stored in-force alert read back as the engine's event (its period from its time and timeframe). */
function storedInForceEvent(body: InForceAlertBody, triggeredAtMs: number): InForceEvent | undefined {
  if (!isTimeframe(body.timeframe)) return undefined;
  const period = periodAt(TIMEFRAME_INTERVAL[body.timeframe], triggeredAtMs);
  if (!period) return undefined;
  return { ...body, triggeredAt: triggeredAtMs, periodTime: period.time } as InForceEvent;
}

/**
 * Simultaneous breaks (docs/strat.md#simultaneous-breaks) for the futures alerts of this batch. The batch's
 * own alerts are already committed, so the alerts of the other futures (maybe from other shards) are read
 * back for the window around them: whichever writer commits second sees both, and the feed's once-keys keep a
 * break that both writers find from being appended twice.
 */
async function detectBreaks(fired: readonly InForceEvent[], ports: IngestPorts): Promise<number> {
  const futures = fired.filter((event) => isFuturesSymbol(event.symbol));
  if (futures.length === 0) return 0;
  const windowMs = ports.breakWindowMs ?? DEFAULT_BREAK_WINDOW_MS;
  const times = futures.map((event) => event.triggeredAt);
  const [fromMs, toMs] = [Math.min(...times) - windowMs, Math.max(...times) + windowMs];
  const stored = (
    await Promise.all(FUTURES_SYMBOLS.map((symbol) => ports.alerts.readBySymbol(symbol, fromMs, toMs)))
  ).flat();
  const events = [
    ...futures,
    ...stored.flatMap(({ body, triggeredAtMs }) => storedInForceEvent(body, triggeredAtMs) ?? []),
  ];
  return ports.breaks.append(simultaneousBreaks(events, windowMs).map(breakFeedEvent));
}

/** Whether `trades` hold the batch that committed `pending`: it was delivered again. */
function redelivers(trades: readonly Trade[], pending: CommittedWrites | undefined): boolean {
  if (pending === undefined) return false;
  const { timestamp, tradeId } = pending.batchMark;
  return trades.some((trade) => trade.timestamp === timestamp && trade.tradeId === tradeId);
}

/**
 * Applies committed writes (idempotent: a second application writes the same): bars, then prices (never
 * moved back), the in-force alerts and the simultaneous breaks they make (appended once by their natural
 * keys), and the states of the ledgers.
 */
async function applyCommitted(
  commits: readonly (LedgerAtVersion & { writes: CommittedWrites })[],
  ports: IngestPorts,
): Promise<{ alerts: number; breaks: number; statesChanged: number; candlesCompleted: number }> {
  const writes = commits.map(({ writes }) => writes);
  const bars = writes.flatMap(({ bars }) => bars);
  await Promise.all([
    ports.bars.putMany(bars),
    ports.prices.putMany(writes.flatMap(({ price }) => price ?? [])),
  ]);
  const fired = writes.flatMap(({ alerts }) => alerts).sort((a, b) => a.triggeredAt - b.triggeredAt);
  const alerts = await ports.alerts.append(fired.map(inForceFeedEvent));
  const breaks = await detectBreaks(fired, ports);
  const latest = new Map(commits.map((commit) => [commit.ledger.symbol, commit]));
  const states = await syncStates([...latest.values()], ports.nowMs(), ports.sectorOf, ports);
  return { alerts, breaks, statesChanged: states.length, candlesCompleted: bars.length };
}

/**
 * Folds one batch of trades (any symbols, each symbol's in stream order) into the stored state
 * (docs/architecture.md#ingestion-a-kinesis-stream-of-trades-one-ingest-lambda). Trades stamped after the
 * service clock's tolerance are set apart, never applied. Each symbol's ledger is read strongly consistent,
 * folded, and committed first, guarded by its version and carrying its derived writes; only then are those
 * writes applied (bars, prices, alerts, breaks, states). A writer that loses the race for a ledger writes
 * nothing derived from it (its symbol is delivered again); a writer that stops after a commit leaves its
 * writes in the ledger, and the redelivered batch applies them again. Volume is never counted twice and no
 * alert fires twice.
 */
export async function ingestTrades(trades: readonly Trade[], ports: IngestPorts): Promise<IngestOutcome> {
  const latestAllowedMs = ports.nowMs() + TRADE_TIMING.futureToleranceMs;
  const future = trades.filter((trade) => trade.timestamp > latestAllowedMs);
  const groups = groupBySymbol(
    future.length === 0 ? trades : trades.filter((trade) => !(trade.timestamp > latestAllowedMs)),
  );
  const stored = await ports.ledgers.getMany([...groups.keys()]);

  const refused: Record<RefusalReason, number> = {
    duplicate: 0,
    late: 0,
    future: future.length,
    outside_session: 0,
    invalid: 0,
    unpriced: 0,
  };
  let applied = 0;
  let latePrints = 0;
  const recovered: (LedgerAtVersion & { writes: CommittedWrites })[] = [];
  const folded: { ledger: SymbolLedger; previousVersion: number | undefined; writes: CommittedWrites }[] = [];
  for (const [symbol, symbolTrades] of groups) {
    const previous = stored.get(symbol);
    if (previous?.pending && redelivers(symbolTrades, previous.pending)) {
      recovered.push({ ledger: previous.ledger, version: previous.version, writes: previous.pending });
    }
    const fold = foldTrades(previous?.ledger, symbol, symbolTrades);
    applied += fold.applied;
    latePrints += fold.latePrints;
    refused.duplicate += fold.duplicates;
    refused.late += fold.late;
    refused.outside_session += fold.outsideSession;
    refused.invalid += fold.invalid;
    refused.unpriced += fold.unpriced;
    if (fold.applied + fold.latePrints === 0) continue;
    const last = symbolTrades.at(-1) as Trade;
    folded.push({
      ledger: fold.ledger,
      previousVersion: previous?.version,
      writes: {
        bars: fold.completed.map(({ interval, bar }) => ({ symbol, interval, bar })),
        ...(fold.applied > 0 && fold.ledger.price ? { price: { symbol, ...fold.ledger.price } } : {}),
        alerts: fold.inForce,
        batchMark: { timestamp: last.timestamp, tradeId: last.tradeId },
      },
    });
  }

  const limit = pLimit(LEDGER_WRITE_CONCURRENCY);
  const outcomes = await Promise.all(
    folded.map((commit) =>
      limit(async () => ({
        commit,
        ok: await ports.ledgers.put(commit.ledger, commit.previousVersion, commit.writes),
      })),
    ),
  );
  const committed = outcomes
    .filter(({ ok }) => ok)
    .map(({ commit }) => ({
      ledger: commit.ledger,
      version: (commit.previousVersion ?? -1) + 1,
      writes: commit.writes,
    }));
  const derived = await applyCommitted([...recovered, ...committed], ports);
  return {
    applied,
    latePrints,
    refused,
    future,
    ...derived,
    recovered: recovered.length,
    failedSymbols: outcomes.filter(({ ok }) => !ok).map(({ commit }) => commit.ledger.symbol),
  };
}
