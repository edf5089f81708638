/**
 * What the Strat needs from storage: the derived states and setup rows, and the append-only feeds of in-force
 * alerts and simultaneous breaks. Implemented by functions/adapters/dynamo/.
 */
import type { SetupRow, SymbolState } from '#domain/strat/setups';
import type { Timeframe } from '#domain/strat/timeframes';

/** A symbol's derived Strat state as last written (what `states` subscribers and `/setups/current` see). */
export interface StoredState extends SymbolState {
  readonly symbol: string;
  /** When it was derived (service clock, Unix ms). */
  readonly updatedAtMs: number;
  /** The version of the ledger it was derived from (missing: stored before versions were kept). */
  readonly ledgerVersion?: number;
}

export interface StateStore {
  getMany(symbols: readonly string[]): Promise<Map<string, StoredState>>;
  /**
   * Writes each state unless the stored one is newer: derived from a later ledger version, or from the same
   * version at a later instant (a writer that read an older ledger can never overwrite a newer state).
   * Returns the states written.
   */
  putNewer(states: readonly StoredState[]): Promise<StoredState[]>;
}

/** Setup rows by timeframe, in symbol order. */
export interface SetupStore {
  /**
   * A timeframe's rows in symbol order, at most `limit`; with `from`, only those after its symbol (or from
   * it, when `inclusive`).
   */
  list(
    timeframe: Timeframe,
    limit: number,
    from?: { readonly symbol: string; readonly inclusive: boolean },
  ): Promise<SetupRow[]>;
  write(changes: {
    readonly put: readonly SetupRow[];
    readonly remove: readonly Pick<SetupRow, 'symbol' | 'timeframe'>[];
  }): Promise<void>;
}

/**
 * An append-only feed of events (in-force alerts, simultaneous breaks) whose ids increase with commit order,
 * so a reader polling with `since_id` never misses one (ADR 0009).
 */
export interface FeedEvent<Body> {
  /** The event's natural key: an event with a key already appended is not appended again. */
  readonly onceKey: string;
  readonly triggeredAtMs: number;
  /** Indexed for `readBySymbol`: set only on the events read back that way (a future's alerts). */
  readonly symbol?: string;
  /**
   * The feed's `head()` read before the event came to be (before the ledger commit that fired it): it can
   * only have been appended past that id, so the feed searches the events appended since for its key and
   * keeps no record of the key. Absent: the key is kept, and any event appended before with it counts.
   */
  readonly madeAfterId?: number;
  readonly body: Body;
}

export interface StoredEvent<Body> {
  readonly id: number;
  readonly triggeredAtMs: number;
  readonly body: Body;
}

export interface FeedReadQuery<Body> {
  /** Only events with a greater id. */
  readonly sinceId?: number;
  /** Only events triggered at or after this instant. */
  readonly fromMs: number;
  readonly limit: number;
  /** Only events that pass (the domain's filters). */
  readonly accept: (event: StoredEvent<Body>) => boolean;
  /** At most this many events are examined, passing the filters or not: the bound on one request's reads. */
  readonly maxExamined: number;
  /**
   * How long the read may go on reading (ms): once spent, it answers what it examined so far, at least one
   * page; absent, no bound but `maxExamined`. A request's time is bounded as its items are.
   */
  readonly budgetMs?: number;
  /**
   * Equality filters on body fields that storage may apply as it reads, so the events a narrow filter leaves
   * out cost no transfer: an event passes only when each named field holds one of the values. `accept`
   * still decides; these only make the read cheaper.
   */
  readonly bodyMatch?: Readonly<Record<string, readonly (string | number)[]>>;
}

export interface FeedPage<Body> {
  /** The accepted events, ids ascending. */
  readonly events: StoredEvent<Body>[];
  /** The id of the last event examined, accepted or not: where a `since_id` poll can go on from. */
  readonly lastExaminedId?: number;
}

/** How an append starts. */
export interface FeedAppendOptions {
  /**
   * A head the caller read (EventFeed.head), as the ingest does before the commit that makes its alerts: the
   * first reservation is tried right after it, without reading the head and the block past it again. When
   * another writer appended since, that reservation fails and the next attempt reads both. It is trusted only
   * once the feed has a head record (a new feed's first block is reserved after reading it).
   */
  readonly knownHead?: number;
}

export interface EventFeed<Body> {
  /** Appends the events not appended before, in order; returns how many it appended. */
  append(events: readonly FeedEvent<Body>[], options?: FeedAppendOptions): Promise<number>;
  /**
   * At most `limit` accepted events, ids ascending, from the first event of the window (or after `sinceId`),
   * examining at most `maxExamined`.
   */
  read(query: FeedReadQuery<Body>): Promise<FeedPage<Body>>;
  /** The highest id committed (0 for an empty feed): one read. */
  head(): Promise<number>;
  /** Events appended with `symbol` set to this one, triggered in [fromMs, toMs], any order. */
  readBySymbol(symbol: string, fromMs: number, toMs: number): Promise<StoredEvent<Body>[]>;
}
