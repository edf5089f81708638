import type { SymbolLedger } from '#domain/market-data/ledger';
import type { LedgerStore, VersionedLedger } from '#domain/market-data/ports';

/**
 * A ledger store that remembers every ledger it read or committed, for a writer that owns the ledgers while it
 * runs (docs/adr/0026-long-running-ingest-consumer.md): it reads a symbol's ledger from storage once, then
 * folds onto the one it committed last, without a read per batch. A symbol found without a ledger is
 * remembered as such until its first commit.
 *
 * It stays right when another writer commits a ledger meanwhile, because every commit is conditional on the
 * version it folded onto: a stale one loses, the symbol is forgotten, and the writer's next read (its retry
 * reads again, functions/use-cases/ingest-trades.ts) goes to storage. Copies go in and out, as storage gives
 * them: a reader that changes what it read changes nothing remembered.
 */
export class RememberedLedgers<Pending> implements LedgerStore<Pending> {
  /** Each symbol read or committed: its ledger, or null when storage had none. */
  private readonly remembered = new Map<string, VersionedLedger<Pending> | null>();

  constructor(private readonly stored: LedgerStore<Pending>) {}

  async get(symbol: string): Promise<VersionedLedger<Pending> | undefined> {
    return (await this.getMany([symbol])).get(symbol);
  }

  async getMany(symbols: readonly string[]): Promise<Map<string, VersionedLedger<Pending>>> {
    const unknown = symbols.filter((symbol) => !this.remembered.has(symbol));
    if (unknown.length > 0) {
      const found = await this.stored.getMany(unknown);
      for (const symbol of unknown) this.remembered.set(symbol, found.get(symbol) ?? null);
    }
    return new Map(
      symbols.flatMap((symbol) => {
        const versioned = this.remembered.get(symbol);
        return versioned ? [[symbol, structuredClone(versioned)] as const] : [];
      }),
    );
  }

  async put(ledger: SymbolLedger, previousVersion: number | undefined, pending?: Pending): Promise<boolean> {
    const committed = await this.stored.put(ledger, previousVersion, pending);
    if (committed) {
      this.remembered.set(ledger.symbol, {
        ledger: structuredClone(ledger),
        version: (previousVersion ?? -1) + 1,
        ...(pending === undefined ? {} : { pending: structuredClone(pending) }),
      });
    } else {
      this.remembered.delete(ledger.symbol);
    }
    return committed;
  }

  settled(): Promise<void> {
    return this.stored.settled();
  }
}
