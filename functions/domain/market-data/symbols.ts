import { MAX_SYMBOL_LENGTH, MAX_SYMBOLS_PER_REQUEST } from '#domain/requests/limits';

/**
 * Tickers are compared upper-cased (docs/partner-guide.md#conventions-of-query-parameters); surrounding white
 * space is not part of a ticker.
 */
export function normalizeSymbol(raw: string): string {
  return raw.trim().toUpperCase();
}

/** Whether a normalized ticker could name an instrument at all (and is safe to use as a table key). */
export function isWellFormedSymbol(symbol: string): boolean {
  return symbol.length > 0 && symbol.length <= MAX_SYMBOL_LENGTH;
}

/**
 * A comma-separated ticker list: normalized, empty or over-long entries and repeats dropped (first occurrence kept, so
 * the caller's order holds), and cut to the first `max` distinct symbols; the rest are silently dropped.
 */
export function parseSymbolList(raw: string, max: number = MAX_SYMBOLS_PER_REQUEST): string[] {
  const symbols = new Set<string>();
  for (const part of raw.split(',')) {
    const symbol = normalizeSymbol(part);
    if (!isWellFormedSymbol(symbol) || symbols.has(symbol)) continue;
    symbols.add(symbol);
    if (symbols.size === max) break;
  }
  return [...symbols];
}

/** A ticker from a URL path: percent-decoded when it is encoded (`ES1%21`), then normalized. */
export function symbolFromPath(raw: string): string {
  let decoded = raw;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    // Not valid percent-encoding: keep it as written; it then matches no instrument.
  }
  return normalizeSymbol(decoded);
}
