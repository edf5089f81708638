import type { Account } from '#domain/access/accounts';
import type { ApiKeyRecord } from '#domain/access/api-keys';
import type { AccountStore, ApiKeyStore } from '#domain/access/ports';
import type { Bar } from '#domain/market-data/bars';
import type { RefusedRecord } from '#domain/market-data/dead-letters';
import { compareBySymbol, type Instrument, symbolContains } from '#domain/market-data/instruments';
import { emptyLedger, type SymbolLedger } from '#domain/market-data/ledger';
import type {
  BarStore,
  DeadLetterSink,
  InstrumentCatalog,
  LedgerStore,
  PriceMove,
  PriceStore,
  QuotePublisher,
  Series,
  SessionTradeLog,
  TradeLogEntry,
  VersionedLedger,
} from '#domain/market-data/ports';
import type { SymbolPrice } from '#domain/market-data/prices';
import type { InForceAlertBody, SimultaneousBreakBody } from '#domain/strat/alerts';
import type {
  EventFeed,
  FeedAppendOptions,
  FeedEvent,
  FeedReadQuery,
  SetupStore,
  StateStore,
  StoredEvent,
  StoredState,
} from '#domain/strat/ports';
import type { SetupRow } from '#domain/strat/setups';
import { supersedes } from '#domain/strat/stored-states';
import type { Timeframe } from '#domain/strat/timeframes';
import type { CommittedWrites } from '#use-cases/ingest-trades';

/** In-memory ports for handler and domain tests: the contracts of the ports, without DynamoDB. */
export class InMemoryInstrumentCatalog implements InstrumentCatalog {
  readonly bySymbol = new Map<string, Instrument>();

  constructor(instruments: readonly Instrument[] = []) {
    for (const instrument of instruments) this.bySymbol.set(instrument.symbol, instrument);
  }

  async get(symbol: string) {
    return this.bySymbol.get(symbol);
  }

  async getMany(symbols: readonly string[]) {
    return [...new Set(symbols)].flatMap((symbol) => this.bySymbol.get(symbol) ?? []);
  }

  async list(filter: { search?: string; limit: number; after?: string }) {
    const after = filter.after;
    return [...this.bySymbol.values()]
      .sort(compareBySymbol)
      .filter((instrument) => symbolContains(instrument.symbol, filter.search))
      .filter((instrument) => after === undefined || instrument.symbol > after)
      .slice(0, filter.limit);
  }

  async putAll(instruments: readonly Instrument[]) {
    for (const instrument of instruments) this.bySymbol.set(instrument.symbol, instrument);
  }
}

export class InMemoryApiKeyStore implements ApiKeyStore {
  readonly records = new Map<string, ApiKeyRecord>();

  async get(keyId: string) {
    return this.records.get(keyId);
  }

  async getMany(keyIds: readonly string[]) {
    return [...new Set(keyIds)].flatMap((keyId) => this.records.get(keyId) ?? []);
  }

  async create(record: ApiKeyRecord) {
    if (this.records.has(record.keyId)) throw new Error(`key ${record.keyId} exists`);
    this.records.set(record.keyId, record);
  }

  async listByAccount(accountId: string) {
    return [...this.records.values()].filter((record) => record.accountId === accountId);
  }

  async revoke(keyId: string, revokedAt: string) {
    const record = this.records.get(keyId);
    if (!record) return undefined;
    const revoked = { ...record, revokedAt: record.revokedAt ?? revokedAt };
    this.records.set(keyId, revoked);
    return revoked;
  }
}

export class InMemoryAccountStore implements AccountStore {
  readonly accounts = new Map<string, Account>();

  async get(accountId: string) {
    return this.accounts.get(accountId);
  }

  async getMany(accountIds: readonly string[]) {
    return [...new Set(accountIds)].flatMap((accountId) => this.accounts.get(accountId) ?? []);
  }

  async put(account: Account) {
    this.accounts.set(account.accountId, account);
  }
}

/** A deterministic stand-in for crypto.randomBytes: bytes counting up from `seed`. */
export function countingBytes(seed = 0) {
  let next = seed;
  return (size: number) => Uint8Array.from({ length: size }, () => next++ % 256);
}

/** The latest prices as the ledgers hold them (docs/adr/0023-latest-price-in-the-ledger.md). */
export class InMemoryPriceStore implements PriceStore {
  constructor(readonly ledgers: InMemoryLedgerStore<unknown> = new InMemoryLedgerStore()) {}

  async getMany(symbols: readonly string[]) {
    return [...new Set(symbols)].flatMap((symbol) => {
      const price = this.ledgers.ledgers.get(symbol)?.ledger.price;
      return price === undefined ? [] : [{ symbol, ...price }];
    });
  }

  /** Test set-up: each symbol's ledger holds `price` (a new ledger when it had none). */
  async seed(prices: readonly SymbolPrice[]) {
    for (const { symbol, ...price } of prices) {
      const stored = this.ledgers.ledgers.get(symbol);
      await this.ledgers.put({ ...(stored?.ledger ?? emptyLedger(symbol)), price }, stored?.version);
    }
  }
}

/** The session trade log, in memory: entries by symbol, minute and version (writing one again replaces it). */
export class InMemoryTradeLog implements SessionTradeLog {
  readonly entries = new Map<string, TradeLogEntry>();
  writes = 0;

  async readMinute(symbol: string, minuteMs: number) {
    return [...this.entries.values()]
      .filter((entry) => entry.symbol === symbol && entry.minuteMs === minuteMs)
      .sort((a, b) => a.version - b.version)
      .map((entry) => structuredClone(entry));
  }

  async nextMinute(symbol: string, afterMinuteMs: number) {
    const day = new Date(afterMinuteMs).toISOString().slice(0, 10);
    const later = [...this.entries.values()]
      .filter((entry) => entry.symbol === symbol && entry.minuteMs > afterMinuteMs)
      .map(({ minuteMs }) => minuteMs)
      .filter((minuteMs) => new Date(minuteMs).toISOString().slice(0, 10) === day);
    return later.length === 0 ? undefined : Math.min(...later);
  }

  async write(entries: readonly TradeLogEntry[]) {
    for (const entry of entries) {
      this.writes++;
      this.entries.set(`${entry.symbol}#${entry.minuteMs}#${entry.version}`, structuredClone(entry));
    }
  }
}

export class InMemoryBarStore implements BarStore {
  readonly series = new Map<string, Map<number, Bar>>();

  async query(series: Series, range: { fromTime?: number; toTime?: number; limit: number }) {
    const from = range.fromTime ?? 0;
    const to = range.toTime ?? Number.MAX_SAFE_INTEGER;
    // DynamoDB refuses a BETWEEN whose lower bound is above its upper bound (a ValidationException).
    if (from > to) throw new Error(`ValidationException: BETWEEN ${from} AND ${to}: lower bound above upper`);
    const bars = [...(this.series.get(`${series.symbol}#${series.interval}`)?.values() ?? [])]
      .filter(
        (bar) => bar.time >= (range.fromTime ?? 0) && bar.time <= (range.toTime ?? Number.MAX_SAFE_INTEGER),
      )
      .sort((a, b) => a.time - b.time);
    return bars.slice(-range.limit);
  }

  async putMany(bars: readonly (Series & { bar: Bar })[]) {
    for (const { symbol, interval, bar } of bars) {
      const key = `${symbol}#${interval}`;
      const series = this.series.get(key) ?? new Map<number, Bar>();
      series.set(bar.time, { ...bar });
      this.series.set(key, series);
    }
  }

  async deleteMany(bars: readonly (Series & { time: number })[]) {
    for (const { symbol, interval, time } of bars) this.series.get(`${symbol}#${interval}`)?.delete(time);
  }
}

export class InMemoryLedgerStore<Pending = unknown> implements LedgerStore<Pending> {
  readonly ledgers = new Map<string, VersionedLedger<Pending>>();

  /** A copy, as storage gives: a reader that changes what it read changes nothing stored. */
  async get(symbol: string) {
    const found = this.ledgers.get(symbol);
    return found && structuredClone(found);
  }

  async getMany(symbols: readonly string[]) {
    return new Map(
      symbols.flatMap((symbol) => {
        const found = this.ledgers.get(symbol);
        return found ? [[symbol, structuredClone(found)] as const] : [];
      }),
    );
  }

  /** Nothing is left running: a put here is whole when it returns. */
  async settled(): Promise<void> {}

  async put(ledger: SymbolLedger, previousVersion: number | undefined, pending?: Pending) {
    if (this.ledgers.get(ledger.symbol)?.version !== previousVersion) return false;
    this.ledgers.set(ledger.symbol, {
      ledger: structuredClone(ledger),
      version: (previousVersion ?? -1) + 1,
      ...(pending === undefined ? {} : { pending: structuredClone(pending) }),
    });
    return true;
  }
}

/** Whether `body` passes a read's `bodyMatch`: each named field holds one of its values. */
function matches(body: unknown, bodyMatch: FeedReadQuery<unknown>['bodyMatch'] = {}): boolean {
  const fields = body as Record<string, unknown>;
  return Object.entries(bodyMatch).every(
    ([field, values]) => values.length === 0 || values.includes(fields[field] as string | number),
  );
}

export class InMemoryEventFeed<Body> implements EventFeed<Body> {
  readonly events: (StoredEvent<Body> & { symbol?: string; onceKey?: string })[] = [];
  /** The keys kept: those of the events appended without a mark. */
  private readonly keys = new Set<string>();

  /**
   * As the adapter: a marked event is looked for among the events after its mark only, an unmarked one among
   * the keys kept (so a mark read too late appends twice here too). Where it starts needs no hint here.
   */
  async append(events: readonly FeedEvent<Body>[], _options?: FeedAppendOptions) {
    let appended = 0;
    for (const event of events) {
      const { onceKey, madeAfterId } = event;
      const found =
        madeAfterId === undefined
          ? this.keys.has(onceKey)
          : this.events.some((stored) => stored.id > madeAfterId && stored.onceKey === onceKey);
      if (found) continue;
      if (madeAfterId === undefined) this.keys.add(onceKey);
      this.events.push({
        onceKey,
        id: this.events.length + 1,
        triggeredAtMs: event.triggeredAtMs,
        symbol: event.symbol,
        body: event.body,
      });
      appended++;
    }
    return appended;
  }

  async read(query: FeedReadQuery<Body>) {
    const windowStart = this.events.find((event) => event.triggeredAtMs >= query.fromMs)?.id;
    if (windowStart === undefined) return { events: [] };
    const examined = this.events
      .filter((event) => event.id > Math.max(query.sinceId ?? 0, windowStart - 1))
      .slice(0, query.maxExamined);
    const events: StoredEvent<Body>[] = [];
    let lastExaminedId: number | undefined;
    for (const { symbol: _symbol, onceKey: _onceKey, ...event } of examined) {
      lastExaminedId = event.id;
      if (event.triggeredAtMs >= query.fromMs && matches(event.body, query.bodyMatch) && query.accept(event))
        events.push(event);
      if (events.length === query.limit) break;
    }
    return { events, ...(lastExaminedId === undefined ? {} : { lastExaminedId }) };
  }

  async head() {
    return this.events.length;
  }

  async readBySymbol(symbol: string, fromMs: number, toMs: number) {
    return this.events
      .filter(
        (event) => event.symbol === symbol && event.triggeredAtMs >= fromMs && event.triggeredAtMs <= toMs,
      )
      .map(({ symbol: _symbol, onceKey: _onceKey, ...event }) => event);
  }
}

export class InMemoryStateStore implements StateStore {
  readonly states = new Map<string, StoredState>();

  async getMany(symbols: readonly string[]) {
    return new Map(
      symbols.flatMap((symbol) => {
        const state = this.states.get(symbol);
        return state ? [[symbol, state] as const] : [];
      }),
    );
  }

  /** One state after the other, as DynamoDB's conditional puts land: of one symbol's, the newest stays. */
  async putNewer(states: readonly StoredState[]) {
    const written: StoredState[] = [];
    for (const state of states) {
      if (!supersedes(state, this.states.get(state.symbol))) continue;
      this.states.set(state.symbol, state);
      written.push(state);
    }
    return written;
  }
}

export class InMemorySetupStore implements SetupStore {
  readonly rows = new Map<string, SetupRow>();

  async list(timeframe: Timeframe, limit: number, from?: { symbol: string; inclusive: boolean }) {
    return [...this.rows.values()]
      .filter((row) => row.timeframe === timeframe)
      .filter(
        (row) =>
          from === undefined || row.symbol > from.symbol || (from.inclusive && row.symbol === from.symbol),
      )
      .sort((a, b) => (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0))
      .slice(0, limit);
  }

  async write(changes: {
    put: readonly SetupRow[];
    remove: readonly Pick<SetupRow, 'symbol' | 'timeframe'>[];
  }) {
    for (const row of changes.put) this.rows.set(`${row.timeframe}#${row.symbol}`, row);
    for (const row of changes.remove) this.rows.delete(`${row.timeframe}#${row.symbol}`);
  }
}

/** The ledger store as seen by a writer that loses every race for `symbol`'s ledger to another writer. */
export function losingLedgers<Store extends object>(store: Store, symbol: string): Store {
  const put = (
    store as unknown as { put: (ledger: { symbol: string }, ...rest: unknown[]) => Promise<boolean> }
  ).put;
  return Object.assign(Object.create(store) as Store, {
    put: async (ledger: { symbol: string }, ...rest: unknown[]) =>
      ledger.symbol === symbol ? false : put.call(store, ledger, ...rest),
  });
}

/** Every port of the ingest path, in memory. */
export function inMemoryIngestPorts(nowMs = Date.parse('2024-11-26T20:00:00Z')) {
  const ledgers = new InMemoryLedgerStore<CommittedWrites>();
  return {
    ledgers,
    bars: new InMemoryBarStore(),
    prices: new InMemoryPriceStore(ledgers),
    tradeLog: new InMemoryTradeLog(),
    alerts: new InMemoryEventFeed<InForceAlertBody>(),
    breaks: new InMemoryEventFeed<SimultaneousBreakBody>(),
    states: new InMemoryStateStore(),
    setups: new InMemorySetupStore(),
    sectorOf: () => 'Information Technology',
    nowMs: () => nowMs,
  };
}

/** Records every prepare call's symbols and every publish call's moves, in order. */
export class RecordingQuotes implements QuotePublisher {
  readonly prepared: string[][] = [];
  readonly calls: PriceMove[][] = [];
  prepare(symbols: readonly string[]): void {
    this.prepared.push([...symbols]);
  }
  async publish(moves: readonly PriceMove[]): Promise<void> {
    this.calls.push([...moves]);
  }
  get moves(): PriceMove[] {
    return this.calls.flat();
  }
}

/** A dead-letter sink that keeps what it was given, and how many puts gave it. */
export function deadLetterSink() {
  const letters: RefusedRecord[] = [];
  let puts = 0;
  const sink: DeadLetterSink = {
    put: async (refused) => {
      puts += 1;
      letters.push(...refused);
    },
  };
  return { sink, letters, puts: () => puts };
}
