import type { SymbolPrice } from '#domain/prices';

/** The latest trade per symbol. */
export interface PriceStore {
  /** The stored prices among `symbols`, in no particular order. */
  getMany(symbols: readonly string[]): Promise<SymbolPrice[]>;
  putMany(prices: readonly SymbolPrice[]): Promise<void>;
}
