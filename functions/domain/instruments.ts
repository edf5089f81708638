import * as z from 'zod';
import type { InstrumentCatalog } from '#ports/instrument-catalog';
import { UnknownSymbolError } from './errors.ts';
import { INSTRUMENTS_LIMIT } from './limits.ts';
import { clampedIntParam, symbolListParam, textParam } from './query-params.ts';
import { isWellFormedSymbol } from './symbols.ts';

/** Spec 2.1. */
export const instrumentSchema = z.object({
  symbol: z.string(),
  name: z.string(),
  market: z.enum(['stocks', 'futures', 'crypto', '']),
  exchange: z.string(),
  type: z.string(),
  sector: z.string(),
  active: z.boolean(),
});

export type Instrument = z.infer<typeof instrumentSchema>;

export const instrumentListSchema = z.object({ items: z.array(instrumentSchema) });

export type InstrumentList = z.infer<typeof instrumentListSchema>;

/** Spec 4.1 query parameters. */
export const listInstrumentsQuerySchema = z.object({
  symbols: symbolListParam(),
  search: textParam(),
  limit: clampedIntParam(INSTRUMENTS_LIMIT),
});

export type ListInstrumentsQuery = z.output<typeof listInstrumentsQuerySchema>;

/** `search` is a case-insensitive substring of the symbol (spec 4.1). */
export function normalizeSearch(search: string | undefined): string | undefined {
  return search?.toUpperCase();
}

export function symbolContains(symbol: string, normalizedSearch: string | undefined): boolean {
  return normalizedSearch === undefined || symbol.includes(normalizedSearch);
}

export function compareBySymbol(a: Pick<Instrument, 'symbol'>, b: Pick<Instrument, 'symbol'>): number {
  return a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0;
}

/** Spec 4.1: `symbols` and `search` both filter; ordered by symbol; at most `limit`. */
export async function listInstruments(
  query: ListInstrumentsQuery,
  catalog: InstrumentCatalog,
): Promise<InstrumentList> {
  const search = normalizeSearch(query.search);
  if (query.symbols === undefined) {
    return { items: await catalog.list({ search, limit: query.limit }) };
  }
  const found = await catalog.getMany(query.symbols);
  const items = found
    .filter((instrument) => symbolContains(instrument.symbol, search))
    .sort(compareBySymbol)
    .slice(0, query.limit);
  return { items };
}

/** Spec 4.2: one instrument, or 404 `unknown_symbol`. */
export async function getInstrument(symbol: string, catalog: InstrumentCatalog): Promise<Instrument> {
  const instrument = isWellFormedSymbol(symbol) ? await catalog.get(symbol) : undefined;
  if (!instrument) throw new UnknownSymbolError(symbol);
  return instrument;
}
