import type { Instrument } from '#domain/instruments';

/** Where instruments are kept. */
export interface InstrumentCatalog {
  get(symbol: string): Promise<Instrument | undefined>;
  /** The instruments among `symbols` that exist, in no particular order. */
  getMany(symbols: readonly string[]): Promise<Instrument[]>;
  /** At most `limit` instruments in symbol order whose symbol contains `search` (already upper-cased). */
  list(filter: { readonly search?: string; readonly limit: number }): Promise<Instrument[]>;
  putAll(instruments: readonly Instrument[]): Promise<void>;
}
