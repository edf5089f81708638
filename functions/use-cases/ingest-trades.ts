import pLimit from 'p-limit';
import { TRADE_TIMING } from '#contracts/ingestion';
import {
  type Bar,
  groupBySymbol,
  isAmendment,
  type StreamItem,
  type Trade,
  type TradeMark,
} from '#domain/market-data/bars';
import type { SymbolLedger } from '#domain/market-data/ledger';
import { periodAt } from '#domain/market-data/periods';
import type {
  BarStore,
  LedgerStore,
  PriceMove,
  QuotePublisher,
  Series,
  SessionTradeLog,
  TradeLogEntry,
  VersionedLedger,
} from '#domain/market-data/ports';
import { priceMoved } from '#domain/market-data/prices';
import {
  type CompactLogEntry,
  compactLogEntry,
  expandLogEntry,
  type LogSplit,
  splitLog,
} from '#domain/market-data/trade-log';
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
import { type AmendmentRefusal, itemMark, SymbolBatch } from './symbol-batch.ts';
import { type LedgerAtVersion, type StateSource, syncStates } from './sync-states.ts';

/**
 * The derived writes of one ledger commit: the bars it completed (or an amendment rewrote or emptied), the
 * in-force alerts it fired and its entries of the session trade log. (The latest price is no derived write:
 * it is part of the ledger, docs/adr/0023-latest-price-in-the-ledger.md.) Stored with the
 * ledger (its `pending`), applied after the commit, and applied again when the batch that committed them is
 * delivered again (the writer may have stopped in between).
 */
export interface CommittedWrites {
  readonly bars: readonly (Series & { bar: Bar })[];
  /** Bars an amendment left without a trade. */
  readonly removedBars?: readonly (Series & { time: number })[];
  readonly alerts: readonly InForceEvent[];
  /**
   * The alerts feed's head read before the commit (set when it fired alerts): they can only be appended past
   * it, so the feed finds them there when the commit is applied again (ADR 0009) and keeps no key per alert.
   */
  readonly alertsMadeAfterId?: number;
  /**
   * The session trade log's entries to write once the commit is made, one per minute: the trades and
   * amendments it applied, and the ones its ledger held before (docs/storage.md#the-session-trade-log).
   */
  readonly log?: readonly CompactLogEntry[];
  /** The latest minute's entries, held by the ledger instead of the log while they are small (splitLog). */
  readonly heldLog?: CompactLogEntry;
  /** The last item of the symbol in the batch that committed them: its redelivery has it again. */
  readonly batchMark: TradeMark;
}

export interface IngestPorts {
  readonly ledgers: LedgerStore<CommittedWrites>;
  readonly bars: BarStore;
  readonly tradeLog: SessionTradeLog;
  readonly alerts: EventFeed<InForceAlertBody>;
  readonly breaks: EventFeed<SimultaneousBreakBody>;
  readonly states: StateStore;
  readonly setups: SetupStore;
  /** The sector of a symbol, for its setup rows. */
  readonly sectorOf: (symbol: string) => string;
  /** The service clock, Unix ms: "now" for the derived states, and what a trade may not be stamped after. */
  readonly nowMs: () => number;
  readonly breakWindowMs?: number;
  /**
   * Where the quotes of the price moves go, right after their commits (docs/adr/0024-quotes-posted-by-the-ingest.md);
   * none where nobody streams (a stack without the WebSocket API, a history import).
   */
  readonly quotes?: QuotePublisher;
}

/** Why a trade was not applied (docs/candles.md#late-and-early-prints). */
export type RefusalReason =
  | 'duplicate'
  | 'redelivered'
  | 'late'
  | 'future'
  | 'outside_session'
  | 'invalid'
  | 'unpriced';

export interface IngestOutcome {
  /** Trades applied in full. */
  readonly applied: number;
  /** Late prints folded into the forming bars' high, low and volume. */
  readonly latePrints: number;
  /** Trades not applied, by reason: every trade in is applied, folded or counted here. */
  readonly refused: Readonly<Record<RefusalReason, number>>;
  /** Trades stamped after the service clock's tolerance: the caller dead-letters them for a redrive. */
  readonly future: readonly Trade[];
  /** Amendments applied: every bar and price their trade touched rewritten. */
  readonly amendmentsApplied: number;
  /** Amendments that changed nothing, by reason: every amendment in is applied or counted here. */
  readonly amendmentsRefused: Readonly<Record<AmendmentRefusal, number>>;
  readonly alerts: number;
  readonly breaks: number;
  readonly statesChanged: number;
  /** Bars completed by the commits (and recoveries) of the batch. */
  readonly candlesCompleted: number;
  /** Symbols whose committed writes were applied again (a redelivery after a stop mid-batch). */
  readonly recovered: number;
  /**
   * Trades of the failed symbols, not counted in this delivery: they come back and are counted then. Every
   * trade delivered is applied, folded late, refused by reason or handed back.
   */
  readonly handedBack: number;
  /**
   * Symbols whose ledger other writers kept changing through COMMIT_ATTEMPTS folds: their trades must be
   * delivered again.
   */
  readonly failedSymbols: readonly string[];
}

/**
 * At most this many of a symbol's items per ledger commit: the commit's pending copy of its trades (about
 * 29 bytes a trade, docs/storage.md#the-session-trade-log) stays near 60 KB, well inside DynamoDB's 400 KB
 * item with the rest of the ledger.
 */
export const ITEMS_PER_COMMIT = 2_000;

/** Folds and commits of a symbol's chunk before it is handed back for a redelivery. */
const COMMIT_ATTEMPTS = 5;

/**
 * Ledger writes in flight at once: a batch's ledgers in one or two rounds (a shard's batch holds a few dozen
 * symbols on AWS), each round a wait for the slowest write; 16 made up to five rounds (docs/benchmarks.md).
 */
const LEDGER_WRITE_CONCURRENCY = 64;

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

/** The trade-log entries a commit carries. */
function logEntriesOf({
  ledger,
  writes,
}: {
  ledger: SymbolLedger;
  writes: CommittedWrites;
}): TradeLogEntry[] {
  return (writes.log ?? []).map((entry) => expandLogEntry(ledger.symbol, entry));
}

/**
 * What a ledger's pending writes say of the trade log: the entries its last commit wrote, maybe not in the log
 * yet (`unlogged`), and the latest minute's it holds, never in it yet (`held`).
 */
export interface LedgerLog {
  readonly unlogged: readonly TradeLogEntry[];
  readonly held?: CompactLogEntry;
}

/** A stored ledger's log (none without pending writes). */
export function ledgerLogOf(versioned: VersionedLedger<CommittedWrites> | undefined): LedgerLog {
  const pending = versioned?.pending;
  if (versioned === undefined || pending === undefined) return { unlogged: [] };
  return {
    unlogged: logEntriesOf({ ledger: versioned.ledger, writes: pending }),
    ...(pending.heldLog === undefined ? {} : { held: pending.heldLog }),
  };
}

/** A symbol's items folded onto its ledger `previous`, whose log is `log`; nothing is written. */
export async function foldSymbol(
  symbol: string,
  previous: SymbolLedger | undefined,
  log: LedgerLog,
  items: readonly StreamItem[],
  ports: Pick<IngestPorts, 'bars' | 'tradeLog'>,
): Promise<SymbolBatch> {
  const held = log.held === undefined ? [] : [expandLogEntry(symbol, log.held)];
  const batch = new SymbolBatch(symbol, previous, ports, log.unlogged, held);
  await batch.take(items);
  return batch;
}

/** Which items are trades stamped after the service clock's tolerance: refused as `future`, never applied. */
export function stampedAfter(nowMs: number): (item: StreamItem) => item is Trade {
  const latestAllowedMs = nowMs + TRADE_TIMING.futureToleranceMs;
  return (item: StreamItem): item is Trade => !isAmendment(item) && item.timestamp > latestAllowedMs;
}

/** Whether `items` hold the batch that committed `pending`: it was delivered again. */
function redelivers(items: readonly StreamItem[], pending: CommittedWrites | undefined): boolean {
  if (pending === undefined) return false;
  const { timestamp, tradeId } = pending.batchMark;
  return items.some((item) => {
    const mark = itemMark(item);
    return mark.timestamp === timestamp && mark.tradeId === tradeId;
  });
}

/**
 * Applies committed writes (idempotent: a second application writes the same), in three independent lines
 * at once, so a batch waits for the longest, not their sum: the trade log and bars; the states of the
 * ledgers; the in-force alerts, then the simultaneous breaks they make (appended once by their natural keys).
 */
async function applyCommitted(
  commits: readonly (StateSource & { writes: CommittedWrites })[],
  alertsHead: number,
  ports: IngestPorts,
): Promise<{ alerts: number; breaks: number; statesChanged: number; candlesCompleted: number }> {
  const writes = commits.map(({ writes }) => writes);
  const bars = writes.flatMap(({ bars }) => bars);
  const fired = writes
    .flatMap(({ alerts, alertsMadeAfterId }) => alerts.map((alert) => ({ alert, alertsMadeAfterId })))
    .sort((a, b) => a.alert.triggeredAt - b.alert.triggeredAt);
  const latest = new Map<string, StateSource>();
  for (const commit of commits) {
    // A symbol committed twice here (a recovered commit, then this batch's): its state is judged against the
    // stored one, as the recovered commit's may never have been written.
    const twice = latest.has(commit.ledger.symbol);
    latest.set(commit.ledger.symbol, twice ? { ledger: commit.ledger, version: commit.version } : commit);
  }
  const [, statesChanged, events] = await Promise.all([
    Promise.all([
      ports.tradeLog.write(commits.flatMap(logEntriesOf)),
      ports.bars.putMany(bars),
      ports.bars.deleteMany(writes.flatMap(({ removedBars }) => removedBars ?? [])),
    ]),
    (async () => (await syncStates([...latest.values()], ports.nowMs(), ports.sectorOf, ports)).length)(),
    (async () => {
      const alerts = await ports.alerts.append(
        fired.map(({ alert, alertsMadeAfterId }) => ({
          ...inForceFeedEvent(alert),
          ...(alertsMadeAfterId === undefined ? {} : { madeAfterId: alertsMadeAfterId }),
        })),
        { knownHead: alertsHead },
      );
      return {
        alerts,
        breaks: await detectBreaks(
          fired.map(({ alert }) => alert),
          ports,
        ),
      };
    })(),
  ]);
  return { ...events, statesChanged, candlesCompleted: bars.length };
}

/**
 * Folds one batch of trades and amendments (any symbols, each symbol's in stream order) into the stored state
 * (docs/architecture.md#ingestion-a-kinesis-stream-of-trades-one-windowed-consumer). Trades stamped after the
 * service clock's tolerance are set apart, never applied. Each symbol's ledger is read strongly consistent,
 * its trades folded and its amendments applied between them (functions/use-cases/symbol-batch.ts), and the
 * ledger committed first, guarded by its version and carrying its derived writes; only then are those
 * writes applied (trade log, bars, prices, alerts, breaks, states). A writer that loses the race for a ledger
 * writes nothing derived from it (its symbol is delivered again); a writer that stops after a commit leaves
 * its writes in the ledger, and the redelivered batch applies them again (its trade log first, so the
 * redelivered amendments find what they amended). Volume is never counted twice, no amendment applies twice
 * and no alert fires twice.
 */
export async function ingestTrades(items: readonly StreamItem[], ports: IngestPorts): Promise<IngestOutcome> {
  const isFuture = stampedAfter(ports.nowMs());
  const future = items.filter(isFuture);
  const groups = groupBySymbol(future.length === 0 ? items : items.filter((item) => !isFuture(item)));
  // The alerts feed's head with the ledgers, before any commit: alerts fired can only be appended past it.
  const [stored, alertsHead] = await Promise.all([
    ports.ledgers.getMany([...groups.keys()]),
    ports.alerts.head(),
  ]);

  const recovered: (LedgerAtVersion & { writes: CommittedWrites })[] = [];
  for (const [symbol, symbolItems] of groups) {
    const previous = stored.get(symbol);
    if (previous?.pending && redelivers(symbolItems, previous.pending)) {
      recovered.push({ ledger: previous.ledger, version: previous.version, writes: previous.pending });
    }
  }
  // Before anything is folded: the amendments of the redelivered batch must find the trades it logged.
  await ports.tradeLog.write(recovered.flatMap(logEntriesOf));

  const refused: Record<RefusalReason, number> = {
    duplicate: 0,
    redelivered: 0,
    late: 0,
    future: future.length,
    outside_session: 0,
    invalid: 0,
    unpriced: 0,
  };
  const amendmentsRefused: Record<AmendmentRefusal, number> = {
    unknown_trade: 0,
    other_session: 0,
    duplicate: 0,
  };
  let applied = 0;
  let latePrints = 0;
  let amendmentsApplied = 0;
  let handedBack = 0;
  const totals = { alerts: 0, breaks: 0, statesChanged: 0, candlesCompleted: 0 };
  const failedSymbols: string[] = [];
  const current = new Map<string, LedgerAtVersion>(
    [...stored].map(([symbol, { ledger, version }]) => [symbol, { ledger, version }]),
  );
  const countBatch = (batch: SymbolBatch): void => {
    applied += batch.applied;
    latePrints += batch.latePrints;
    refused.duplicate += batch.duplicates;
    refused.late += batch.late;
    refused.redelivered += batch.redelivered;
    refused.outside_session += batch.outsideSession;
    refused.invalid += batch.invalid;
    refused.unpriced += batch.unpriced;
    amendmentsApplied += batch.amendmentsApplied;
    for (const reason of Object.keys(amendmentsRefused) as AmendmentRefusal[]) {
      amendmentsRefused[reason] += batch.amendmentsRefused[reason];
    }
  };
  // Per symbol: what the ledger folded onto says of the trade log.
  const logs = new Map([...stored].map(([symbol, versioned]) => [symbol, ledgerLogOf(versioned)]));
  // A symbol's items in commits of at most ITEMS_PER_COMMIT, one round after the other: its ledger's pending
  // copy of the trades stays bounded however many trades one batch brings.
  const chunks = new Map([...groups].map(([symbol, symbolItems]) => [symbol, inCommits(symbolItems)]));
  const rounds = Math.max(0, ...[...chunks.values()].map((list) => list.length));
  for (let round = 0; round < rounds; round++) {
    let pending: { symbol: string; chunk: readonly StreamItem[] }[] = [...chunks].flatMap(
      ([symbol, symbolChunks]) => {
        const chunk = symbolChunks[round];
        return chunk === undefined || failedSymbols.includes(symbol) ? [] : [{ symbol, chunk }];
      },
    );
    const committed: (StateSource & { writes: CommittedWrites })[] = [];
    // A redelivered batch pushes its recovered commits' quotes again, first: the first delivery may have
    // stopped before it pushed them (a duplicate keeps its id, so it is billed once).
    const moves: PriceMove[] = round === 0 ? recovered.flatMap((commit) => priceMove(commit) ?? []) : [];
    // A commit that lost its ledger to another writer is folded again onto that writer's ledger, read anew,
    // and committed again: the batch merges what the other writer did instead of failing and coming back
    // (docs/candles.md#late-and-early-prints). Counted only once its commit is decided.
    for (let attempt = 1; pending.length > 0; attempt++) {
      if (attempt > 1) {
        const reread = await ports.ledgers.getMany(pending.map(({ symbol }) => symbol));
        for (const { symbol } of pending) {
          const latest = reread.get(symbol);
          if (latest === undefined) current.delete(symbol);
          else current.set(symbol, { ledger: latest.ledger, version: latest.version });
          logs.set(symbol, ledgerLogOf(latest));
        }
      }
      const folded: {
        symbol: string;
        chunk: readonly StreamItem[];
        previous: LedgerAtVersion | undefined;
        batch: SymbolBatch;
        /** Whether the fold moved the latest price: its commit pushes a quote. */
        movesPrice: boolean;
      }[] = [];
      for (const { symbol, chunk } of pending) {
        const previous = current.get(symbol);
        const batch = await foldSymbol(
          symbol,
          previous?.ledger,
          logs.get(symbol) ?? { unlogged: [] },
          chunk,
          ports,
        );
        if (!batch.changed || batch.ledger === undefined) {
          countBatch(batch);
          continue;
        }
        folded.push({
          symbol,
          chunk,
          previous,
          batch,
          movesPrice: priceMoved(previous?.ledger.price, batch.ledger.price),
        });
      }

      ports.quotes?.prepare(folded.flatMap(({ symbol, movesPrice }) => (movesPrice ? [symbol] : [])));
      const limit = pLimit(LEDGER_WRITE_CONCURRENCY);
      const outcomes = await Promise.all(
        folded.map((fold) =>
          limit(async () => {
            const ledger = fold.batch.ledger as SymbolLedger;
            const version = (fold.previous?.version ?? -1) + 1;
            const writes = committedWrites(
              fold.batch,
              version,
              fold.chunk.at(-1) as StreamItem,
              alertsHead,
              logs.get(fold.symbol)?.held,
            );
            return {
              ...fold,
              ledger,
              version,
              writes,
              ok: await ports.ledgers.put(ledger, fold.previous?.version, writes),
            };
          }),
        ),
      );
      pending = [];
      for (const outcome of outcomes) {
        if (outcome.ok) {
          countBatch(outcome.batch);
          current.set(outcome.symbol, { ledger: outcome.ledger, version: outcome.version });
          // Logged once the round's committed writes are applied, before the next round folds.
          logs.set(outcome.symbol, {
            unlogged: [],
            ...(outcome.writes.heldLog === undefined ? {} : { held: outcome.writes.heldLog }),
          });
          committed.push({
            ledger: outcome.ledger,
            version: outcome.version,
            writes: outcome.writes,
            ...(outcome.previous === undefined ? {} : { replaced: outcome.previous.ledger }),
          });
          const move = outcome.movesPrice && priceMove(outcome);
          if (move) moves.push(move);
        } else if (attempt < COMMIT_ATTEMPTS) {
          pending.push({ symbol: outcome.symbol, chunk: outcome.chunk });
        } else {
          // Handed back whole, from this chunk on: delivered again, counted then.
          failedSymbols.push(outcome.symbol);
          const left = (chunks.get(outcome.symbol) ?? []).slice(round).flat();
          handedBack += left.filter((item) => !isAmendment(item)).length;
        }
      }
    }
    // Before the next round commits: a stop after it finds only its own writes pending.
    // The quotes go out while the derived writes are made: a quote needs only its ledger's commit.
    const [derived] = await Promise.all([
      applyCommitted(round === 0 ? [...recovered, ...committed] : committed, alertsHead, ports),
      ports.ledgers.settled(),
      moves.length > 0 ? ports.quotes?.publish(moves) : undefined,
    ]);
    for (const key of Object.keys(totals) as (keyof typeof totals)[]) totals[key] += derived[key];
  }
  return {
    applied,
    latePrints,
    refused,
    future,
    amendmentsApplied,
    amendmentsRefused,
    ...totals,
    recovered: recovered.length,
    handedBack,
    failedSymbols,
  };
}

/** The price move of a commit whose ledger holds a latest price. */
function priceMove({ ledger, version }: LedgerAtVersion): PriceMove | undefined {
  return ledger.price === undefined ? undefined : { symbol: ledger.symbol, ...ledger.price, version };
}

/** A symbol's items in runs of at most ITEMS_PER_COMMIT, in order. */
function inCommits(items: readonly StreamItem[]): StreamItem[][] {
  const chunks: StreamItem[][] = [];
  for (let start = 0; start < items.length; start += ITEMS_PER_COMMIT) {
    chunks.push(items.slice(start, start + ITEMS_PER_COMMIT));
  }
  return chunks;
}

/** What a symbol's commit at `version` carries for after it; `heldLog`: what its ledger held before. */
function committedWrites(
  batch: SymbolBatch,
  version: number,
  last: StreamItem,
  alertsHead: number,
  heldLog: CompactLogEntry | undefined,
): CommittedWrites {
  const { symbol } = batch;
  const bars = [...batch.bars.values()];
  const removedBars = bars.flatMap(({ interval, time, bar }) =>
    bar === undefined ? [{ symbol, interval, time }] : [],
  );
  return {
    bars: bars.flatMap(({ interval, bar }) => (bar === undefined ? [] : [{ symbol, interval, bar }])),
    ...(removedBars.length > 0 ? { removedBars } : {}),
    alerts: batch.inForce,
    ...(batch.inForce.length > 0 ? { alertsMadeAfterId: alertsHead } : {}),
    ...logOf(splitLog(heldLog, batch.logEntries(version).map(compactLogEntry), version)),
    batchMark: itemMark(last),
  };
}

/** A split log as committed writes carry it: the entries written, and the ones held when there are. */
function logOf({ written, held }: LogSplit): Pick<CommittedWrites, 'log' | 'heldLog'> {
  return { log: written, ...(held === undefined ? {} : { heldLog: held }) };
}
