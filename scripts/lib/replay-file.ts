import { parse } from 'csv-parse/sync';
import * as z from 'zod/mini';
import type { Trade } from '#domain/market-data/bars';
import { fileTimeProblem, parseFileTime } from '#domain/market-data/file-times';
import { normalizeSymbol } from '#domain/market-data/symbols';

/**
 * Files `npm run replay` reads (CSV with a header):
 * - trades: `time,symbol,price,size`
 * - 1-minute bars: `time,symbol,open,high,low,close,volume` (time = the minute's start)
 * `time` is ISO 8601 (with an offset or Z; a plain date-time is UTC) or Unix seconds. A bar becomes four
 * trades inside its minute, open, high, low and close in that order (at +0, +15, +30 and +45 seconds), its
 * volume split among them, so every longer interval is built by the same aggregation as live trades.
 */
export type ReplayKind = 'trades' | 'bars';

const TRADE_COLUMNS = ['time', 'symbol', 'price', 'size'];
const BAR_COLUMNS = ['time', 'symbol', 'open', 'high', 'low', 'close', 'volume'];
const BAR_TRADE_OFFSETS_MS = [0, 15_000, 30_000, 45_000];

const positive = z.coerce.number().check(z.positive());
const nonnegative = z.coerce.number().check(z.nonnegative());
const symbol = z.pipe(z.string().check(z.minLength(1), z.maxLength(32)), z.transform(normalizeSymbol));
const time = z.pipe(
  z.string(),
  z.transform((raw: string, payload) => {
    const problem = fileTimeProblem(raw);
    if (problem !== undefined) {
      payload.issues.push({ code: 'custom', message: problem, input: raw });
      return z.NEVER;
    }
    return parseFileTime(raw) as number;
  }),
);
const tradeRow = z.object({ time, symbol, price: positive, size: nonnegative });
const barRow = z
  .object({
    time,
    symbol,
    open: positive,
    high: positive,
    low: positive,
    close: positive,
    volume: nonnegative,
  })
  .check(
    z.refine((bar) => bar.low <= Math.min(bar.open, bar.close) && bar.high >= Math.max(bar.open, bar.close), {
      message: 'low <= open, close <= high does not hold',
    }),
  );

export class ReplayFileError extends Error {}

/** Unix milliseconds of an ISO 8601 time or of Unix seconds (integer or decimal). */
export const parseReplayTime = parseFileTime;

/** Splits a bar's volume over its four trades, whole units where the volume is whole. */
function splitVolume(volume: number): number[] {
  if (!Number.isInteger(volume)) return [volume / 4, volume / 4, volume / 4, volume - (3 * volume) / 4];
  const share = Math.floor(volume / 4);
  return [share, share, share, volume - 3 * share];
}

/**
 * The trades of a replay file, ordered by time (stable: rows of equal time keep the file's order). Trade
 * ids are `<source>:<row>` (`:<k>` for a bar's k-th trade), zero-padded so they sort as the file does:
 * replaying the same file twice applies nothing the second time.
 */
export function parseReplayCsv(text: string, source: string): { kind: ReplayKind; trades: Trade[] } {
  const rows: Record<string, string>[] = parse(text, {
    columns: (header: string[]) => header.map((name) => name.trim().toLowerCase()),
    skip_empty_lines: true,
    trim: true,
  });
  const header = Object.keys(rows[0] ?? {});
  const kind: ReplayKind | undefined = BAR_COLUMNS.every((column) => header.includes(column))
    ? 'bars'
    : TRADE_COLUMNS.every((column) => header.includes(column))
      ? 'trades'
      : undefined;
  if (!kind) {
    throw new ReplayFileError(`the header must be ${TRADE_COLUMNS.join(',')} or ${BAR_COLUMNS.join(',')}`);
  }
  const trades: Trade[] = [];
  rows.forEach((row, index) => {
    const line = index + 2;
    const id = `${source}:${String(line).padStart(9, '0')}`;
    const parsed = (kind === 'bars' ? barRow : tradeRow).safeParse(row);
    if (!parsed.success) throw new ReplayFileError(`line ${line}: ${z.prettifyError(parsed.error)}`);
    const value = parsed.data;
    if ('price' in value) {
      trades.push({
        symbol: value.symbol,
        price: value.price,
        size: value.size,
        timestamp: value.time,
        tradeId: id,
      });
      return;
    }
    const volumes = splitVolume(value.volume);
    [value.open, value.high, value.low, value.close].forEach((price, k) => {
      trades.push({
        symbol: value.symbol,
        price,
        size: volumes[k] ?? 0,
        timestamp: value.time + (BAR_TRADE_OFFSETS_MS[k] ?? 0),
        tradeId: `${id}:${k}`,
      });
    });
  });
  return { kind, trades: trades.sort((a, b) => a.timestamp - b.timestamp) };
}
