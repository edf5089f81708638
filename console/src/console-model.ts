/**
 * The console's pure rules (docs/console.md): price formatting to an instrument's tick, the search over the
 * listing it holds, the feeds' order and the service clock between two readings.
 */

/** The futures' price increments (docs/console.md#search-clock-feeds-and-prices): each shows the decimals of its tick. */
const FUTURES_TICKS: Readonly<Record<string, number>> = {
  'ES1!': 0.25,
  'NQ1!': 0.25,
  'RTY1!': 0.1,
  'YM1!': 1,
};

/** Decimals of a price: a future's tick's, else 2 at or above $1 and 4 below (a stock's cent or sub-cent tick). */
export function priceDecimals(value: number, symbol?: string): number {
  const tick = symbol === undefined ? undefined : FUTURES_TICKS[symbol];
  if (tick !== undefined) return (String(tick).split('.')[1] ?? '').length;
  return Math.abs(value) >= 1 ? 2 : 4;
}

/** A price to its instrument's tick, with thousands separators; `–` when there is none. */
export function formatPrice(value: number | null | undefined, symbol?: string): string {
  if (value === null || value === undefined) return '–';
  const decimals = priceDecimals(value, symbol);
  return value.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}

export interface Listed {
  readonly symbol: string;
  readonly name: string;
}

/**
 * The instruments matching a search, over the whole listing: by symbol (a symbol starting with the text
 * first) or by name ("apple" finds AAPL), case-insensitive; at most `limit`.
 */
export function matchInstruments<Item extends Listed>(
  listing: readonly Item[],
  text: string,
  limit: number,
): Item[] {
  const wanted = text.trim().toLowerCase();
  if (wanted === '') return listing.slice(0, limit);
  const rank = (item: Item) => {
    const symbol = item.symbol.toLowerCase();
    if (symbol === wanted) return 0;
    if (symbol.startsWith(wanted)) return 1;
    if (symbol.includes(wanted)) return 2;
    return item.name.toLowerCase().includes(wanted) ? 3 : undefined;
  };
  return listing
    .map((item) => ({ item, rank: rank(item) }))
    .filter((entry): entry is { item: Item; rank: number } => entry.rank !== undefined)
    .sort((a, b) => a.rank - b.rank)
    .slice(0, limit)
    .map(({ item }) => item);
}

/** A feed entry's place: when it fired (ISO 8601), then its id. */
export interface FeedKey {
  readonly firedAt: string;
  readonly id: number;
}

/** Where an entry goes in a feed ordered newest first (by the time it fired, then the larger id first). */
export function feedIndex(existing: readonly FeedKey[], entry: FeedKey): number {
  const time = Date.parse(entry.firedAt);
  const index = existing.findIndex((other) => {
    const otherTime = Date.parse(other.firedAt);
    return otherTime < time || (otherTime === time && other.id < entry.id);
  });
  return index === -1 ? existing.length : index;
}

/**
 * The service clock between readings of `/market-status`: the last reading moved on at the rate the service
 * clock ran between the last two readings (1 at first; a demo clock with `--speed` runs faster).
 */
export class ServiceClock {
  private last: { serviceMs: number; localMs: number } | undefined;
  private rate = 1;

  read(serviceIso: string, localMs: number): void {
    const serviceMs = Date.parse(serviceIso);
    if (this.last && localMs - this.last.localMs >= 1000) {
      const measured = (serviceMs - this.last.serviceMs) / (localMs - this.last.localMs);
      if (measured > 0 && Number.isFinite(measured)) this.rate = measured;
    }
    this.last = { serviceMs, localMs };
  }

  /** The service time at `localMs`, or undefined before the first reading. */
  now(localMs: number): Date | undefined {
    if (!this.last) return undefined;
    return new Date(this.last.serviceMs + (localMs - this.last.localMs) * this.rate);
  }
}
