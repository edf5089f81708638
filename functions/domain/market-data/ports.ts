/**
 * What market data needs from storage and the trade stream: implemented by functions/adapters/ (DynamoDB,
 * Kinesis) and, in tests, by in-memory fakes.
 */

import type { Bar, StreamItem } from './bars.ts';
import type { RefusedRecord } from './dead-letters.ts';
import type { Instrument } from './instruments.ts';
import type { Interval } from './intervals.ts';
import type { SymbolLedger } from './ledger.ts';
import type { SymbolPrice } from './prices.ts';
import type { LoggedAmendment, LoggedTrade } from './trade-amendments.ts';

/** Where instruments are kept. */
export interface InstrumentCatalog {
  get(symbol: string): Promise<Instrument | undefined>;
  /** The instruments among `symbols` that exist, in no particular order. */
  getMany(symbols: readonly string[]): Promise<Instrument[]>;
  /**
   * The listing in symbol order: symbols containing `search` (already upper-cased), after `after` (exclusive),
   * at most `limit`.
   */
  list(filter: {
    readonly search?: string;
    readonly limit: number;
    readonly after?: string;
  }): Promise<Instrument[]>;
  putAll(instruments: readonly Instrument[]): Promise<void>;
}

export interface Series {
  readonly symbol: string;
  readonly interval: Interval;
}

/** Bars a later period replaced in the ledger, one item per bar. */
export interface BarStore {
  /** At most `limit` bars of the series with fromTime <= time <= toTime, the most recent ones, oldest first. */
  query(series: Series, range: { fromTime?: number; toTime?: number; limit: number }): Promise<Bar[]>;
  putMany(bars: readonly (Series & { bar: Bar })[]): Promise<void>;
  /** Removes bars (an amendment left their period without a trade); removing one that is gone is no error. */
  deleteMany(bars: readonly (Series & { time: number })[]): Promise<void>;
}

/**
 * A ledger with the version it was read at, for optimistic concurrency, and the derived writes committed with
 * that version (`Pending`: the ingest path's, functions/use-cases/ingest-trades.ts), kept so a writer that
 * crashed after the commit can have them applied again.
 */
export interface VersionedLedger<Pending = unknown> {
  readonly ledger: SymbolLedger;
  readonly version: number;
  readonly pending?: Pending;
}

/** Ledgers are read strongly consistent: a writer always folds onto the latest committed version. */
export interface LedgerStore<Pending = unknown> {
  get(symbol: string): Promise<VersionedLedger<Pending> | undefined>;
  getMany(symbols: readonly string[]): Promise<Map<string, VersionedLedger<Pending>>>;
  /**
   * Writes the ledger, with its pending writes, as version `previousVersion + 1` (0 when new); false if
   * another writer got there first.
   */
  put(ledger: SymbolLedger, previousVersion: number | undefined, pending?: Pending): Promise<boolean>;
  /**
   * Resolves once the clean-up the earlier puts left running is done (storage no committed ledger needs any
   * more); rejects as it failed. A writer calls it before it reports its work done.
   */
  settled(): Promise<void>;
}

/**
 * The latest trade per symbol, as the ledgers hold it: a ledger commit writes it with the ledger, so there is
 * no other copy to keep in step (docs/adr/0023-latest-price-in-the-ledger.md).
 */
export interface PriceStore {
  /** The latest prices among `symbols` (a symbol never traded has none), in no particular order. */
  getMany(symbols: readonly string[]): Promise<SymbolPrice[]>;
}

/**
 * A ledger commit that moved its symbol's latest price (a new last sale, or a price an amendment restated):
 * what a quote is pushed for (docs/adr/0024-quotes-posted-by-the-ingest.md).
 */
export interface PriceMove extends SymbolPrice {
  /** The ledger version that committed it: one move per commit. */
  readonly version: number;
  /**
   * Set when the quote goes out before its commit (docs/adr/0026-long-running-ingest-consumer.md): its number
   * among the quotes of the fold that `version` will commit, as a window-folded ledger moves several times
   * before its commit.
   */
  readonly revision?: number;
}

/**
 * Pushes the quotes of committed price moves to the subscribed connections, right after their commits, while
 * the batch's derived writes are made. Never throws: a push that failed is counted, not retried (a quote is the
 * latest value; the next one, or `/prices/latest`, replaces it).
 */
export interface QuotePublisher {
  /**
   * Starts finding who follows these symbols' quotes while their commits are made, so the quotes go out as
   * soon as the commits are done (a lookup that fails fails those quotes' posts, counted, when published).
   */
  prepare(symbols: readonly string[]): void;
  publish(moves: readonly PriceMove[]): Promise<void>;
}

/** The trades (and amendments) one ledger commit applied in one minute of a symbol's session. */
export interface TradeLogEntry {
  readonly symbol: string;
  /** The minute's start, Unix ms (the minute the trades are stamped in, late prints included). */
  readonly minuteMs: number;
  /** The ledger version that committed them: the entry's identity, so writing it again changes nothing. */
  readonly version: number;
  /** In the order applied. */
  readonly trades: readonly LoggedTrade[];
  readonly amendments: readonly LoggedAmendment[];
}

/**
 * The session trade log (docs/storage.md#the-session-trade-log): every applied trade of the session per
 * symbol and minute, what an amendment rebuilds a minute's bar from. Kept a few days (TTL).
 */
export interface SessionTradeLog {
  /** One minute of a symbol: its entries in commit order. */
  readMinute(symbol: string, minuteMs: number): Promise<TradeLogEntry[]>;
  /** The first minute after `afterMinuteMs` of the same session date that holds an entry of the symbol. */
  nextMinute(symbol: string, afterMinuteMs: number): Promise<number | undefined>;
  write(entries: readonly TradeLogEntry[]): Promise<void>;
}

/**
 * Where trades (and amendments of trades put before) enter the ingest path: the trades stream (Kinesis on
 * AWS, the local stream locally), each symbol's items in the order given.
 */
export interface TradeSink {
  put(trades: readonly StreamItem[]): Promise<void>;
}

/** Where the ingest path sets apart the records it refuses whole (docs/replay.md#dead-letters-and-redrive). */
export interface DeadLetterSink {
  put(records: readonly RefusedRecord[]): Promise<void>;
}
