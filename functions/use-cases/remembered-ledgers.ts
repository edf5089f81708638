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
 * reads again, functions/use-cases/ingest-trades.ts) goes to storage. What it remembers is frozen, and handed
 * out as it is on every read: a window reads each symbol it folds, and copying a ledger with its last commit's
 * writes on every read (then on every commit) took the consumer a fifth of its CPU, then a twentieth. A ledger
 * read from storage is copied once; a ledger and writes committed are frozen as the writer gave them (it hands
 * them over: ingestTrades never changes them after). A reader or writer that tried to change them would
 * throw rather than change what is remembered.
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
      for (const symbol of unknown) {
        const versioned = found.get(symbol);
        this.remembered.set(symbol, versioned ? frozenCopy(versioned) : null);
      }
    }
    return new Map(
      symbols.flatMap((symbol) => {
        const versioned = this.remembered.get(symbol);
        return versioned ? [[symbol, versioned] as const] : [];
      }),
    );
  }

  async put(ledger: SymbolLedger, previousVersion: number | undefined, pending?: Pending): Promise<boolean> {
    const committed = await this.stored.put(ledger, previousVersion, pending);
    if (committed) {
      this.remembered.set(
        ledger.symbol,
        deepFreeze({
          ledger,
          version: (previousVersion ?? -1) + 1,
          ...(pending === undefined ? {} : { pending }),
        }),
      );
    } else {
      this.remembered.delete(ledger.symbol);
    }
    return committed;
  }

  settled(): Promise<void> {
    return this.stored.settled();
  }
}

/** A deep copy of `value` whose every object and array is frozen. */
function frozenCopy<Value>(value: Value): Value {
  return deepFreeze(structuredClone(value));
}

function deepFreeze<Value>(value: Value): Value {
  // A typed array's elements cannot be frozen (Object.freeze throws): its bytes stay as they are.
  if (typeof value !== 'object' || value === null || ArrayBuffer.isView(value) || Object.isFrozen(value))
    return value;
  for (const child of Object.values(value)) deepFreeze(child);
  return Object.freeze(value);
}
