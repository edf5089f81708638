import { UnknownSymbolError } from '#domain/requests/errors';
import type { PagePosition } from '#domain/requests/page-cursor';
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

/** A page of a listing: the body, and where the next page starts when more items may follow. */
export interface ListingPage<Body> {
  readonly body: Body;
  readonly next?: PagePosition;
}

/**
 * GET /instruments (docs/partner-guide.md#get-instruments): `symbols` and `search` both filter; ordered by
 * symbol; at most `limit`, after the cursor's symbol. One more than `limit` is read to know whether a next
 * page exists (docs/partner-guide.md#paging-through-a-listing).
 */
export async function listInstruments(
  query: ListInstrumentsQuery,
  catalog: InstrumentCatalog,
): Promise<ListingPage<InstrumentList>> {
  const search = normalizeSearch(query.search);
  const after = query.cursor?.symbol;
  const read =
    query.symbols === undefined
      ? await catalog.list({ search, limit: query.limit + 1, ...(after === undefined ? {} : { after }) })
      : (await catalog.getMany(query.symbols))
          .filter((instrument) => symbolContains(instrument.symbol, search))
          .filter((instrument) => after === undefined || instrument.symbol > after)
          .sort(compareBySymbol);
  const items = read.slice(0, query.limit);
  const last = items.at(-1);
  return {
    body: { items },
    ...(read.length > query.limit && last ? { next: { symbol: last.symbol } } : {}),
  };
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
