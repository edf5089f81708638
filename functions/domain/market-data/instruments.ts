import * as z from 'zod/mini';
import { INSTRUMENTS_LIMIT } from '#domain/requests/limits';
import { cursorParam } from '#domain/requests/page-cursor';
import { clampedIntParam, symbolListParam, textParam } from '#domain/requests/query-params';

/** An instrument (docs/partner-guide.md#instrument). */
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

/** The query parameters of GET /instruments (docs/partner-guide.md#get-instruments). */
export const listInstrumentsQuerySchema = z.object({
  symbols: symbolListParam(),
  search: textParam(),
  limit: clampedIntParam(INSTRUMENTS_LIMIT),
  cursor: cursorParam(['symbol']),
});

export type ListInstrumentsQuery = z.output<typeof listInstrumentsQuerySchema>;

/** `search` is a case-insensitive substring of the symbol (docs/partner-guide.md#get-instruments). */
export function normalizeSearch(search: string | undefined): string | undefined {
  return search?.toUpperCase();
}

export function symbolContains(symbol: string, normalizedSearch: string | undefined): boolean {
  return normalizedSearch === undefined || symbol.includes(normalizedSearch);
}

export function compareBySymbol(a: Pick<Instrument, 'symbol'>, b: Pick<Instrument, 'symbol'>): number {
  return a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0;
}
