import { UnknownSymbolError } from '#domain/requests/errors';
import {
  compareBySymbol,
  type Instrument,
  type InstrumentList,
  type ListInstrumentsQuery,
  normalizeSearch,
  symbolContains,
} from './instruments.ts';
import type { InstrumentCatalog } from './ports.ts';
import { isWellFormedSymbol } from './symbols.ts';

/**
 * GET /instruments (docs/partner-guide.md#get-instruments): `symbols` and `search` both filter; ordered by
 * symbol; at most `limit`.
 */
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

/**
 * GET /instruments/{symbol} (docs/partner-guide.md#get-instrumentssymbol): one instrument, or 404
 * `unknown_symbol`.
 */
export async function getInstrument(symbol: string, catalog: InstrumentCatalog): Promise<Instrument> {
  const instrument = isWellFormedSymbol(symbol) ? await catalog.get(symbol) : undefined;
  if (!instrument) throw new UnknownSymbolError(symbol);
  return instrument;
}
