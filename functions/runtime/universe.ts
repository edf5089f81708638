import type { Instrument } from '#domain/market-data/instruments';
import type { InstrumentCatalog } from '#domain/market-data/ports';

/** The tracked universe, read once and kept for `ttlMs` (sectors for setup rows, the clock tick's symbols). */
export function cachedUniverse(catalog: () => InstrumentCatalog, ttlMs: number) {
  let cached: { readAtMs: number; instruments: Promise<Map<string, Instrument>> } | undefined;
  return (): Promise<Map<string, Instrument>> => {
    if (!cached || Date.now() - cached.readAtMs > ttlMs) {
      const instruments = catalog()
        .list({ limit: Number.MAX_SAFE_INTEGER })
        .then((list) => new Map(list.map((instrument) => [instrument.symbol, instrument])));
      instruments.catch(() => {
        cached = undefined;
      });
      cached = { readAtMs: Date.now(), instruments };
    }
    return cached.instruments;
  };
}
