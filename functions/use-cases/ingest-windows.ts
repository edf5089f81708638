import type { StreamItem } from '#domain/market-data/bars';
import type { RefusedRecord } from '#domain/market-data/dead-letters';
import type { DeadLetterSink, PriceMove, QuotePublisher } from '#domain/market-data/ports';
import { priceMoved } from '#domain/market-data/prices';
import { decodeRecord, futureRefusals, oldestTradeMs, type TradeStreamRecord } from './ingest-records.ts';
import {
  type CommittedWrites,
  foldSymbol,
  type IngestOutcome,
  type IngestPorts,
  ITEMS_PER_COMMIT,
  ingestTrades,
  ledgerLogOf,
  stampedAfter,
} from './ingest-trades.ts';
import { RememberedLedgers } from './remembered-ledgers.ts';

/** A record of the trades stream and the shard it was read from. */
export interface ShardRecord extends TradeStreamRecord {
  readonly shardId: string;
}

/**
 * Where the consumer keeps how far it got in each shard: the sequence number of the shard's last record whose
 * every trade is committed. A consumer that starts again reads each shard after its position.
 */
export interface ShardCheckpoints {
  save(positions: ReadonlyMap<string, string>): Promise<void>;
}

/** The ingest's ports, the quotes aside: each window is given its own publisher. */
export interface WindowedIngestPorts extends Omit<IngestPorts, 'quotes'> {
  readonly deadLetters: DeadLetterSink;
  readonly checkpoints: ShardCheckpoints;
}

export interface WindowedIngestOptions {
  /**
   * How long a symbol's folded trades may wait for their commit (commits behind), in ms of `wallClockMs`. A
   * fold that fires alerts is committed in its own window.
   */
  readonly commitIntervalMs: number;
  /**
   * The longest the next window may take to come while trades come (INGEST_WINDOWS.windowMs): a symbol's
   * folded trades are committed by the last window before they would wait longer than `commitIntervalMs`, not
   * the first one after.
   */
  readonly windowMs: number;
  /** Real time, Unix ms, for the commit interval (not the service clock, which a simulation speeds up). */
  readonly wallClockMs: () => number;
}

/** What one window came to, for the consumer's metrics and log. */
export interface WindowOutcome {
  /** Quotes published in the window, before their commits. */
  readonly quotes: number;
  /** Records that were not trades, dead-lettered whole. */
  readonly poison: number;
  /** Trades (and amendments) whose commit was decided in the window: each is counted in `committed`. */
  readonly committedItems: number;
  /** What the window's commits came to; none when it committed nothing. */
  readonly committed?: IngestOutcome;
  /** Trades set apart as `future`, dead-lettered before the positions passed them. */
  readonly deadLettered: number;
  /** Shard positions the window advanced, saved after everything before them was committed. */
  readonly checkpoints: ReadonlyMap<string, string>;
  /** The oldest trade the window took in, amendments aside (for how long trades wait for a window). */
  readonly oldestTakenMs?: number;
  /** The oldest trade the window committed, amendments aside (for how far the stored state trails). */
  readonly oldestCommittedMs?: number;
}

/** A record's trades not yet committed: its shard's position passes it once there are none. */
interface RecordProgress {
  readonly record: ShardRecord;
  uncommitted: number;
}

/** A symbol's items folded but not committed, in stream order, since the window the first came in. */
interface SymbolBacklog {
  readonly items: { readonly item: StreamItem; readonly progress: RecordProgress }[];
  readonly sinceMs: number;
}

/**
 * The core of a long-running ingest consumer (docs/adr/0026-long-running-ingest-consumer.md): it takes the
 * trades of every shard in windows, folds them at once and publishes their quotes before committing them, and
 * commits each symbol's ledger within `commitIntervalMs` of its first uncommitted fold (at once when its fold
 * fires alerts), so about once every `commitIntervalMs - windowMs` for a symbol that trades all the time.
 *
 * A window's quotes come from folding each symbol's uncommitted items onto the ledger it committed last, the
 * fold its next commit makes. The commits are the Lambda ingest's own (`ingestTrades`, its quotes left out:
 * they went out already), so a commit keeps its conditions, derived writes, recovery and counts; a trade is
 * counted once its commit is decided, never when it is only folded for a quote. Ledgers are remembered
 * between commits (`RememberedLedgers`), read once from storage.
 *
 * A shard's position advances past a record only once every trade of it is committed and its refused records
 * dead-lettered, so a consumer that stops anywhere and starts again from the positions loses nothing: what it
 * reads again was committed already (counted `redelivered`) or was never committed.
 */
export class WindowedIngest {
  private readonly ledgers: RememberedLedgers<CommittedWrites>;
  private readonly backlogs = new Map<string, SymbolBacklog>();
  /** Per shard, its records in stream order from the first one not wholly committed. */
  private readonly shards = new Map<string, RecordProgress[]>();
  /** The last quote published per symbol: a fold that leaves the price there publishes none. */
  private readonly quoted = new Map<string, PriceMove>();
  /** When a window last saved positions (`wallClockMs`). */
  private lastSavedMs = Number.NEGATIVE_INFINITY;
  /** Records that are not trades, waiting for their dead letter: their position waits with them. */
  private poisonPending: { readonly refused: RefusedRecord; readonly progress: RecordProgress }[] = [];

  constructor(
    private readonly ports: WindowedIngestPorts,
    private readonly options: WindowedIngestOptions,
  ) {
    this.ledgers = new RememberedLedgers(ports.ledgers);
  }

  /** Symbols folded and not yet committed. */
  get backlog(): number {
    return this.backlogs.size;
  }

  /**
   * One window: its records from every shard, each shard's in stream order; its quotes go to `quotes` (none
   * where nobody streams).
   */
  async window(records: readonly ShardRecord[], quotes?: QuotePublisher): Promise<WindowOutcome> {
    const nowMs = this.options.wallClockMs();
    const touched = new Set<string>();
    const takenItems: StreamItem[] = [];
    let poison = 0;
    for (const record of records) {
      const progress: RecordProgress = { record, uncommitted: 0 };
      const queue = this.shards.get(record.shardId) ?? [];
      queue.push(progress);
      this.shards.set(record.shardId, queue);
      const decoded = decodeRecord(record);
      if ('poison' in decoded) {
        poison++;
        progress.uncommitted++;
        this.poisonPending.push({ refused: decoded.poison, progress });
        continue;
      }
      for (const item of decoded.items) {
        takenItems.push(item);
        progress.uncommitted++;
        const backlog = this.backlogs.get(item.symbol) ?? { items: [], sinceMs: nowMs };
        backlog.items.push({ item, progress });
        this.backlogs.set(item.symbol, backlog);
        touched.add(item.symbol);
      }
    }
    await this.deadLetterPoison();

    const { moves, alerting } = await this.foldForQuotes([...touched], quotes !== undefined);
    if (moves.length > 0) await quotes?.publish(moves);
    const due = [...this.backlogs].flatMap(([symbol, backlog]) =>
      alerting.has(symbol) ||
      nowMs - backlog.sinceMs + this.options.windowMs >= this.options.commitIntervalMs ||
      backlog.items.length >= ITEMS_PER_COMMIT
        ? [symbol]
        : [],
    );
    const committed = await this.commit(due);
    return {
      quotes: moves.length,
      poison,
      ...committed,
      checkpoints: await this.savePositions(nowMs),
      ...oldestTrade('oldestTakenMs', takenItems),
    };
  }

  /** Dead-letters the records that are not trades, before any position can pass them (again, if it failed). */
  private async deadLetterPoison(): Promise<void> {
    const pending = this.poisonPending;
    if (pending.length === 0) return;
    await this.ports.deadLetters.put(pending.map(({ refused }) => refused));
    this.poisonPending = [];
    for (const { progress } of pending) progress.uncommitted--;
  }

  /** Commits everything folded (before the consumer stops, or to hand the ledgers over). */
  async drain(): Promise<Omit<WindowOutcome, 'quotes' | 'poison'>> {
    await this.deadLetterPoison();
    const committed = await this.commit([...this.backlogs.keys()]);
    return { ...committed, checkpoints: await this.savePositions() };
  }

  /**
   * Folds each symbol's uncommitted items onto the ledger it committed last, as its commit will: the quotes of
   * the prices that moved, and the symbols whose fold fires alerts (committed at once).
   */
  private async foldForQuotes(
    symbols: readonly string[],
    quoting: boolean,
  ): Promise<{ moves: PriceMove[]; alerting: Set<string> }> {
    const isFuture = stampedAfter(this.ports.nowMs());
    const stored = await this.ledgers.getMany(symbols);
    const moves: PriceMove[] = [];
    const alerting = new Set<string>();
    for (const symbol of symbols) {
      const previous = stored.get(symbol);
      const items = (this.backlogs.get(symbol)?.items ?? [])
        .map(({ item }) => item)
        .filter((item) => !isFuture(item));
      const batch = await foldSymbol(symbol, previous?.ledger, ledgerLogOf(previous), items, this.ports);
      if (batch.inForce.length > 0) alerting.add(symbol);
      const price = batch.ledger?.price;
      const version = (previous?.version ?? -1) + 1;
      // What partners saw last: this consumer's last quote, or the stored price when it sent none yet.
      const last = this.quoted.get(symbol);
      if (!quoting || price === undefined || !priceMoved(last ?? previous?.ledger.price, price)) continue;
      const revision = last?.version === version ? (last.revision ?? 0) + 1 : 1;
      const move: PriceMove = { symbol, ...price, version, revision };
      this.quoted.set(symbol, move);
      moves.push(move);
    }
    return { moves, alerting };
  }

  /** Commits these symbols' backlogs. */
  private async commit(
    symbols: readonly string[],
  ): Promise<Pick<WindowOutcome, 'committedItems' | 'committed' | 'deadLettered' | 'oldestCommittedMs'>> {
    const entries = symbols.flatMap((symbol) => this.backlogs.get(symbol)?.items ?? []);
    if (entries.length === 0) return { committedItems: 0, deadLettered: 0 };
    // The quotes went out with the windows that folded these trades: the commits publish none.
    const items = entries.map(({ item }) => item);
    const committed = await ingestTrades(items, { ...this.ports, ledgers: this.ledgers });
    const refused =
      committed.future.length === 0
        ? []
        : futureRefusals(
            committed.future,
            new Map(entries.map(({ item, progress }) => [item, progress.record])),
          );
    if (refused.length > 0) await this.ports.deadLetters.put(refused);
    const failed = new Set(committed.failedSymbols);
    let committedItems = 0;
    for (const symbol of symbols) {
      const backlog = this.backlogs.get(symbol);
      if (backlog === undefined) continue;
      committedItems += backlog.items.length;
      // A symbol handed back stays folded, to be committed with the next window's (counted then).
      if (failed.has(symbol)) continue;
      for (const { progress } of backlog.items) progress.uncommitted--;
      this.backlogs.delete(symbol);
    }
    return {
      committedItems,
      committed,
      deadLettered: refused.length,
      ...oldestTrade('oldestCommittedMs', items),
    };
  }

  /**
   * Saves the positions of the shards that moved: each one's last record with every record up to it done. A
   * window (`nowMs`) saves at most once every `windowMs`: windows of quiet symbols may come much more often,
   * and a position saved later only means more read again after a takeover. A drain always saves.
   */
  private async savePositions(nowMs?: number): Promise<Map<string, string>> {
    if (nowMs !== undefined && nowMs - this.lastSavedMs < this.options.windowMs) return new Map();
    const positions = new Map<string, string>();
    for (const [shardId, queue] of this.shards) {
      let done = 0;
      while (done < queue.length && (queue[done] as RecordProgress).uncommitted === 0) done++;
      if (done === 0) continue;
      positions.set(shardId, (queue[done - 1] as RecordProgress).record.sequenceNumber);
      queue.splice(0, done);
    }
    if (positions.size > 0) {
      await this.ports.checkpoints.save(positions);
      this.lastSavedMs = nowMs ?? this.options.wallClockMs();
    }
    return positions;
  }
}

/** The oldest trade's time among `items` under `key`, amendments aside; nothing when there is no trade. */
function oldestTrade<Key extends string>(
  key: Key,
  items: readonly StreamItem[],
): Partial<Record<Key, number>> {
  const oldest = oldestTradeMs(items);
  return oldest === undefined ? {} : ({ [key]: oldest } as Record<Key, number>);
}
