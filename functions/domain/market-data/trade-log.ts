/**
 * The compact form of a session trade log entry (docs/storage.md#the-session-trade-log): parallel arrays
 * instead of one object per trade, the times as offsets in the minute. What the trade-log table stores and
 * what a ledger's pending writes carry until they are written (about 29 bytes a trade instead of 62).
 */
import type { TradeLogEntry } from './ports.ts';
import type { LoggedAmendment, LoggedTrade } from './trade-amendments.ts';

export interface CompactLogEntry {
  /** The minute's start, Unix ms. */
  readonly minuteMs: number;
  /** The ledger version that committed it. */
  readonly version: number;
  /** Milliseconds after the minute's start. */
  readonly t: readonly number[];
  readonly i: readonly string[];
  readonly p: readonly number[];
  readonly s: readonly number[];
  /** Positions of the volume-only trades. */
  readonly v?: readonly number[];
  /** The amendments, as JSON. */
  readonly a?: string;
}

export function compactLogEntry(entry: TradeLogEntry): CompactLogEntry {
  const volumeOnly = entry.trades.flatMap((trade, index) => (trade.volumeOnly === true ? [index] : []));
  return {
    minuteMs: entry.minuteMs,
    version: entry.version,
    t: entry.trades.map((trade) => trade.timestamp - entry.minuteMs),
    i: entry.trades.map((trade) => trade.tradeId),
    p: entry.trades.map((trade) => trade.price),
    s: entry.trades.map((trade) => trade.size),
    ...(volumeOnly.length > 0 ? { v: volumeOnly } : {}),
    ...(entry.amendments.length > 0 ? { a: JSON.stringify(entry.amendments) } : {}),
  };
}

export function expandLogEntry(symbol: string, compact: CompactLogEntry): TradeLogEntry {
  const { minuteMs, version } = compact;
  const volumeOnly = new Set(compact.v ?? []);
  const trades: LoggedTrade[] = compact.t.map((offset, index) => ({
    timestamp: minuteMs + offset,
    tradeId: compact.i[index] as string,
    price: compact.p[index] as number,
    size: compact.s[index] as number,
    ...(volumeOnly.has(index) ? { volumeOnly: true } : {}),
  }));
  const amendments = compact.a === undefined ? [] : (JSON.parse(compact.a) as LoggedAmendment[]);
  return { symbol, minuteMs, version, trades, amendments };
}

/**
 * How much of a symbol's latest minute its ledger holds instead of the trade log, as the entries' JSON length
 * (docs/storage.md#the-session-trade-log). A log item costs a write unit however small, and most commits
 * apply a trade or two: held until its minute ends or this fills, a symbol trading a few times a minute
 * writes one item a minute instead of one a commit. Ten to twenty trades, by the length of their ids: the
 * ledger stays within one write unit, and so does the item (a larger hold saves few items and makes more of
 * them two units).
 */
export const HELD_LOG_BYTES = 600;

/** What a commit writes to the trade log once it is made, and what its ledger holds. */
export interface LogSplit {
  /** One entry per minute, at the commit's version (its identity: writing it again changes nothing). */
  readonly written: CompactLogEntry[];
  /** The latest minute's entries, while they take at most HELD_LOG_BYTES. */
  readonly held?: CompactLogEntry;
}

/**
 * Splits what a commit at `version` logs: the entries its ledger held before (`held`) and its own
 * (`entries`), merged per minute in the order applied. The latest minute stays held while it is small; every
 * earlier minute (the minute before, a late print's, an amendment's) is written, and so is the latest once
 * it is full.
 */
export function splitLog(
  held: CompactLogEntry | undefined,
  entries: readonly CompactLogEntry[],
  version: number,
): LogSplit {
  const byMinute = new Map<number, CompactLogEntry>();
  for (const entry of held === undefined ? entries : [held, ...entries]) {
    const earlier = byMinute.get(entry.minuteMs);
    byMinute.set(
      entry.minuteMs,
      earlier === undefined ? { ...entry, version } : mergeEntries(earlier, entry),
    );
  }
  const merged = [...byMinute.values()].sort((a, b) => a.minuteMs - b.minuteMs);
  const latest = merged.at(-1);
  return latest !== undefined && JSON.stringify(latest).length <= HELD_LOG_BYTES
    ? { written: merged.slice(0, -1), held: latest }
    : { written: merged };
}

/**
 * One minute's two entries as one, under `earlier`'s minute and version: `later`'s trades and amendments
 * after `earlier`'s.
 */
function mergeEntries(earlier: CompactLogEntry, later: CompactLogEntry): CompactLogEntry {
  const volumeOnly = [...(earlier.v ?? []), ...(later.v ?? []).map((index) => index + earlier.t.length)];
  const amendments = [earlier.a, later.a].flatMap((json) =>
    json === undefined ? [] : (JSON.parse(json) as unknown[]),
  );
  return {
    minuteMs: earlier.minuteMs,
    version: earlier.version,
    t: [...earlier.t, ...later.t],
    i: [...earlier.i, ...later.i],
    p: [...earlier.p, ...later.p],
    s: [...earlier.s, ...later.s],
    ...(volumeOnly.length > 0 ? { v: volumeOnly } : {}),
    ...(amendments.length > 0 ? { a: JSON.stringify(amendments) } : {}),
  };
}
