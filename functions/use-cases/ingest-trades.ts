import pLimit from 'p-limit';
import type { Bar, Trade } from '#domain/market-data/bars';
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
import { syncStates } from './sync-states.ts';

export interface IngestPorts {
  readonly ledgers: LedgerStore;
  readonly bars: BarStore;
  readonly prices: PriceStore;
  readonly alerts: EventFeed<InForceAlertBody>;
  readonly breaks: EventFeed<SimultaneousBreakBody>;
  readonly states: StateStore;
  readonly setups: SetupStore;
  /** The sector of a symbol, for its setup rows. */
  readonly sectorOf: (symbol: string) => string;
  /** The service clock, Unix ms: "now" for the derived states. */
  readonly nowMs: () => number;
  readonly breakWindowMs?: number;
}

export interface IngestOutcome {
  readonly applied: number;
  readonly duplicates: number;
  readonly outsideSession: number;
  readonly invalid: number;
  readonly alerts: number;
  readonly breaks: number;
  readonly statesChanged: number;
  /** Symbols whose ledger another writer changed meanwhile: their trades must be delivered again. */
  readonly failedSymbols: readonly string[];
}

/** Ledger writes in flight at once. */
const LEDGER_WRITE_CONCURRENCY = 16;

function groupBySymbol(trades: readonly Trade[]): Map<string, Trade[]> {
  const groups = new Map<string, Trade[]>();
  for (const trade of trades) {
    const group = groups.get(trade.symbol);
    if (group) group.push(trade);
    else groups.set(trade.symbol, [trade]);
  }
  return groups;
}

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

/**
 * Folds one batch of trades (any symbols, each symbol's in stream order) into the stored state, with one
 * write per changed item. Writes go in this order: completed bars and latest prices (absolute values: a
 * retry writes the same), the in-force alerts and simultaneous breaks (appended once by their natural
 * keys), the derived states that changed, and last each symbol's ledger, guarded by its version. A
 * redelivered batch finds the ledger's watermark past its trades and changes nothing: volume is never
 * counted twice and no alert fires twice
 * (docs/architecture.md#ingestion-a-kinesis-stream-of-trades-one-ingest-lambda).
 */
export async function ingestTrades(trades: readonly Trade[], ports: IngestPorts): Promise<IngestOutcome> {
  const groups = groupBySymbol(trades);
  const stored = await ports.ledgers.getMany([...groups.keys()]);

  const completed: (Series & { bar: Bar })[] = [];
  const prices: SymbolPrice[] = [];
  const fired: InForceEvent[] = [];
  const changed: { ledger: SymbolLedger; version: number | undefined }[] = [];
  let duplicates = 0;
  let outsideSession = 0;
  let invalid = 0;
  let applied = 0;
  for (const [symbol, symbolTrades] of groups) {
    const previous = stored.get(symbol);
    const fold = foldTrades(previous?.ledger, symbol, symbolTrades);
    duplicates += fold.duplicates;
    outsideSession += fold.outsideSession;
    invalid += fold.invalid;
    applied += fold.applied;
    if (fold.applied === 0) continue;
    for (const { interval, bar } of fold.completed) completed.push({ symbol, interval, bar });
    if (fold.ledger.price) prices.push({ symbol, ...fold.ledger.price });
    fired.push(...fold.inForce);
    changed.push({ ledger: fold.ledger, version: previous?.version });
  }

  await Promise.all([ports.bars.putMany(completed), ports.prices.putMany(prices)]);
  fired.sort((a, b) => a.triggeredAt - b.triggeredAt);
  const alerts = await ports.alerts.append(fired.map(inForceFeedEvent));
  const breaks = await detectBreaks(fired, ports);
  const states = await syncStates(
    changed.map(({ ledger }) => ledger),
    ports.nowMs(),
    ports.sectorOf,
    ports,
  );

  const limit = pLimit(LEDGER_WRITE_CONCURRENCY);
  const written = await Promise.all(
    changed.map(({ ledger, version }) =>
      limit(async () => ({ symbol: ledger.symbol, ok: await ports.ledgers.put(ledger, version) })),
    ),
  );
  return {
    applied,
    duplicates,
    outsideSession,
    invalid,
    alerts,
    breaks,
    statesChanged: states.length,
    failedSymbols: written.filter(({ ok }) => !ok).map(({ symbol }) => symbol),
  };
}
