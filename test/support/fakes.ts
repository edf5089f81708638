import type { Account } from '#domain/accounts';
import type { Bar, SymbolLedger } from '#domain/aggregation';
import type { ApiKeyRecord } from '#domain/api-keys';
import { compareBySymbol, type Instrument, symbolContains } from '#domain/instruments';
import type { SymbolPrice } from '#domain/prices';
import type { AccountStore, ApiKeyStore } from '#ports/credentials';
import type { InstrumentCatalog } from '#ports/instrument-catalog';
import type { BarStore, LedgerStore, Series, VersionedLedger } from '#ports/market-data';
import type { PriceStore } from '#ports/price-store';

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
    return symbols.flatMap((symbol) => this.bySymbol.get(symbol) ?? []);
  }

  async list(filter: { search?: string; limit: number }) {
    return [...this.bySymbol.values()]
      .sort(compareBySymbol)
      .filter((instrument) => symbolContains(instrument.symbol, filter.search))
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

  async put(account: Account) {
    this.accounts.set(account.accountId, account);
  }
}

export function instrument(symbol: string, overrides: Partial<Instrument> = {}): Instrument {
  return {
    symbol,
    name: `${symbol} Inc.`,
    market: 'stocks',
    exchange: 'NYSE',
    type: 'CS',
    sector: 'Industrials',
    active: true,
    ...overrides,
  };
}

/** A deterministic stand-in for crypto.randomBytes: bytes counting up from `seed`. */
export function countingBytes(seed = 0) {
  let next = seed;
  return (size: number) => Uint8Array.from({ length: size }, () => next++ % 256);
}

export class InMemoryPriceStore implements PriceStore {
  readonly prices = new Map<string, SymbolPrice>();

  async getMany(symbols: readonly string[]) {
    return symbols.flatMap((symbol) => this.prices.get(symbol) ?? []);
  }

  async putMany(prices: readonly SymbolPrice[]) {
    for (const price of prices) this.prices.set(price.symbol, price);
  }
}

export class InMemoryBarStore implements BarStore {
  readonly series = new Map<string, Map<number, Bar>>();

  async query(series: Series, range: { fromTime?: number; toTime?: number; limit: number }) {
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
}

export class InMemoryLedgerStore implements LedgerStore {
  readonly ledgers = new Map<string, VersionedLedger>();

  async get(symbol: string) {
    return this.ledgers.get(symbol);
  }

  async getMany(symbols: readonly string[]) {
    return new Map(
      symbols.flatMap((symbol) => {
        const found = this.ledgers.get(symbol);
        return found ? [[symbol, found] as const] : [];
      }),
    );
  }

  async put(ledger: SymbolLedger, previousVersion: number | undefined) {
    if (this.ledgers.get(ledger.symbol)?.version !== previousVersion) return false;
    this.ledgers.set(ledger.symbol, {
      ledger: structuredClone(ledger),
      version: (previousVersion ?? -1) + 1,
    });
    return true;
  }
}
