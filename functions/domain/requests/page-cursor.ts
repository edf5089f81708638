import { queryParam, withWireForm } from './query-params.ts';

/**
 * Paging of the listings ordered by symbol (`/instruments`, `/setups/current`;
 * docs/partner-guide.md#paging-through-a-listing): a page that may not be the last carries an RFC 8288
 * `Link: <?...&cursor=...>; rel="next"` header, the same request with an opaque `cursor` naming the last item
 * it returned. The body keeps its shape.
 */

/** Where the previous page ended: the last item's sort key (the symbol, and for setup rows the timeframe). */
export type PagePosition = Readonly<Record<string, string>>;

/** The cursor parameter's name. */
export const CURSOR_PARAMETER = 'cursor';

/** The opaque form of a position: base64url of its JSON, prefixed with a version. */
export function encodeCursor(position: PagePosition): string {
  return `1.${Buffer.from(JSON.stringify(position)).toString('base64url')}`;
}

function decodeCursor(cursor: string, keys: readonly string[]): PagePosition | undefined {
  const match = /^1\.([A-Za-z0-9_-]{1,400})$/.exec(cursor);
  if (!match) return undefined;
  try {
    const position = JSON.parse(Buffer.from(match[1] as string, 'base64url').toString('utf8')) as unknown;
    if (typeof position !== 'object' || position === null || Array.isArray(position)) return undefined;
    const record = position as Record<string, unknown>;
    if (!keys.every((key) => typeof record[key] === 'string')) return undefined;
    return Object.fromEntries(keys.map((key) => [key, record[key] as string]));
  } catch {
    return undefined;
  }
}

/** The `cursor` query parameter: absent gives `undefined`; one this service did not give is a 400. */
export function cursorParam(keys: readonly string[]) {
  const schema = queryParam((value, refuse) => {
    if (value === undefined) return undefined;
    return decodeCursor(value, keys) ?? refuse('is not a cursor from a Link header of this route');
  });
  return withWireForm(schema, {
    schema: { type: 'string' },
    description:
      'Opaque: where the previous page ended. Take it from the `rel="next"` link of the `Link` header, ' +
      'which carries the same parameters; without it the listing starts at its first symbol.',
  });
}

/** The `Link` response header, as the OpenAPI document describes it. */
export const nextPageLinkHeader = {
  description:
    'RFC 8288: `<?...>; rel="next"` when more items may follow, a reference relative to this request (its ' +
    'query only: the same parameters and a `cursor`); absent on the last page.',
  schema: { type: 'string' },
} as const;

/**
 * The `Link` header's value for the next page: the request's own parameters (canonical form, lists
 * comma-separated) and the cursor of `position`.
 */
export function nextPageLink(params: Readonly<Record<string, unknown>>, position: PagePosition): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (name === CURSOR_PARAMETER) continue;
    if (Array.isArray(value)) search.set(name, value.join(','));
    else if (typeof value === 'string' || typeof value === 'number') search.set(name, String(value));
  }
  search.set(CURSOR_PARAMETER, encodeCursor(position));
  return `<?${search.toString()}>; rel="next"`;
}
