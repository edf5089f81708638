/**
 * The bar files `npm run backfill` imports (docs/backfill.md#file-format): CSV with a header naming
 * `time,symbol,open,high,low,close,volume` in any order, case-insensitive (other columns are ignored and
 * reported). With `1d`, `time` is the session date `YYYY-MM-DD`; with `1m`, the minute's start, ISO 8601 or
 * Unix seconds (functions/domain/market-data/file-times.ts, as `npm run replay` reads it).
 *
 * The whole file is read and checked before anything is written; every refusal names its line
 * (docs/backfill.md#refusals): a malformed line, a price that is not a number above zero, a negative volume,
 * a low above the high, an open or close outside low..high, an unknown symbol, a 1d row on a date that is not
 * a session of the calendar (functions/domain/calendar/sessions.ts), a 1m row that does not start on a
 * minute, a bar whose period has not ended by the service clock, a duplicate (symbol, time). A 1m row
 * outside the regular session is not an error: it is ignored and counted, as the live path ignores such
 * trades (docs/candles.md#which-trades-count).
 *
 * Speed: a file without a double quote (what vendors write) is split on line breaks and commas; one with
 * quotes goes through csv-parse, which reads RFC 4180 quoting (both give the same fields: the unit tests check
 * it). Dates and times repeat across symbols, so each distinct one is looked up once.
 */
import { parse } from 'csv-parse/sync';
import { epochDayOfIsoDate, MS_PER_DAY, MS_PER_MINUTE } from '#domain/calendar/time-zone';
import type { Bar } from './bars.ts';
import { fileTimeProblem, parseFileTime } from './file-times.ts';
import { calendarPeriodOfDay, isInPeriodRange, sessionTimesAt } from './periods.ts';
import { normalizeSymbol } from './symbols.ts';

/** The intervals a bar file can hold. */
export const BAR_FILE_INTERVALS = ['1d', '1m'] as const;

export type BarFileInterval = (typeof BAR_FILE_INTERVALS)[number];

export const BAR_FILE_COLUMNS = ['time', 'symbol', 'open', 'high', 'low', 'close', 'volume'] as const;

/** A bar of the file: `time` is its bar time (Unix seconds, docs/candles.md#intervals); `line` its line. */
export interface FileBar extends Bar {
  readonly line: number;
}

export interface BarFile {
  readonly interval: BarFileInterval;
  /** Per symbol, its bars in time order (symbols in order of first appearance). */
  readonly bars: ReadonlyMap<string, FileBar[]>;
  /** Data lines read (empty lines aside). */
  readonly rows: number;
  /** Rows not imported, by reason: 1m rows outside the regular session. */
  readonly ignored: { readonly outsideSession: number };
  /** Header columns other than the seven, ignored. */
  readonly extraColumns: readonly string[];
}

export interface BarFileRules {
  readonly interval: BarFileInterval;
  /** Whether a (normalized) symbol is in the universe. */
  readonly isKnownSymbol: (symbol: string) => boolean;
  /** The service clock, Unix ms: a bar whose period has not ended by then is refused. */
  readonly nowMs: number;
}

/** At most this many refusals are listed (all are counted). */
export const MAX_LISTED_PROBLEMS = 20;

/** A file that cannot be imported: nothing of it is written. */
export class BarFileError extends Error {
  constructor(
    /** The first MAX_LISTED_PROBLEMS refusals, each naming its line. */
    readonly problems: readonly string[],
    /** How many refusals the file has in all. */
    readonly total: number,
  ) {
    const more = total > problems.length ? `\n  ... and ${total - problems.length} more` : '';
    super(
      `the file is refused, nothing was written (${total} problem${total === 1 ? '' : 's'}):\n  ${problems.join('\n  ')}${more}`,
    );
  }
}

interface Columns {
  readonly time: number;
  readonly symbol: number;
  readonly open: number;
  readonly high: number;
  readonly low: number;
  readonly close: number;
  readonly volume: number;
  readonly count: number;
  readonly extra: string[];
}

function columnsOf(header: readonly string[]): Columns {
  const names = header.map((name) => name.trim().toLowerCase());
  const index = (column: string): number => names.indexOf(column);
  const missing = BAR_FILE_COLUMNS.filter((column) => index(column) === -1);
  const repeated = names.filter((name, position) => name !== '' && names.indexOf(name) !== position);
  if (missing.length > 0 || repeated.length > 0) {
    const what = [
      missing.length > 0 ? `it lacks ${missing.join(', ')}` : '',
      repeated.length > 0 ? `it repeats ${[...new Set(repeated)].join(', ')}` : '',
    ]
      .filter(Boolean)
      .join('; ');
    throw new BarFileError(
      [`line 1: the header must name ${BAR_FILE_COLUMNS.join(',')} (any order, any case): ${what}`],
      1,
    );
  }
  const known: readonly string[] = BAR_FILE_COLUMNS;
  return {
    time: index('time'),
    symbol: index('symbol'),
    open: index('open'),
    high: index('high'),
    low: index('low'),
    close: index('close'),
    volume: index('volume'),
    count: names.length,
    extra: names.filter((name) => !known.includes(name)),
  };
}

/** Calls `each` with the fields and line number of every non-empty line (the header included). */
function forEachRecord(text: string, each: (fields: string[], line: number) => void): void {
  if (!text.includes('"')) {
    // One line at a time (not text.split): the file's lines are never all held as strings at once.
    let lineNumber = 0;
    for (let start = 0; start <= text.length; ) {
      let end = text.indexOf('\n', start);
      if (end === -1) end = text.length;
      lineNumber++;
      const stop = end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end;
      if (stop > start) {
        const line = text.slice(start, stop);
        if (!(line.charCodeAt(0) <= 32 && line.trim() === '')) each(line.split(','), lineNumber);
      }
      start = end + 1;
    }
    return;
  }
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, {
      info: true,
      relax_column_count: true,
      skip_empty_lines: true,
    }) as unknown as typeof records;
  } catch (error) {
    const line = (error as { lines?: number }).lines;
    throw new BarFileError(
      [`line ${line ?? '?'}: malformed CSV (${error instanceof Error ? error.message : String(error)})`],
      1,
    );
  }
  for (const { record, info } of records) {
    if (record.length === 1 && (record[0] ?? '').trim() === '') continue;
    each(record, info.lines);
  }
}

/** A price or volume field: a finite number, NaN for anything else (an empty field included). */
function numberOf(raw: string | undefined): number {
  if (raw === undefined) return Number.NaN;
  const value = Number(raw);
  // Number('') and Number('  ') are 0: an empty field is not a number (trimmed only then, off the hot path).
  return value === 0 && raw.trim() === '' ? Number.NaN : value;
}

/** What a `time` field means, looked up once per distinct value. */
type TimeReading =
  | { readonly ok: true; readonly time: number; readonly endMs: number; readonly inSession: boolean }
  | { readonly ok: false; readonly problem: string };

function readDailyTime(raw: string): TimeReading {
  let day: number;
  try {
    day = epochDayOfIsoDate(raw);
  } catch {
    return { ok: false, problem: `time "${raw}" is not a date YYYY-MM-DD` };
  }
  let period: ReturnType<typeof calendarPeriodOfDay>;
  try {
    period = calendarPeriodOfDay('1d', day);
  } catch {
    return { ok: false, problem: `date ${raw} is outside the market calendar's range` };
  }
  if (period === undefined) {
    return { ok: false, problem: `${raw} is not a session of the market calendar (weekend or holiday)` };
  }
  return { ok: true, time: period.time, endMs: period.endMs, inSession: true };
}

function readMinuteTime(raw: string): TimeReading {
  const problem = fileTimeProblem(raw);
  if (problem !== undefined) return { ok: false, problem };
  const ms = parseFileTime(raw) as number;
  if (!isInPeriodRange(ms))
    return { ok: false, problem: `time "${raw}" is outside the market calendar's range` };
  if (ms % MS_PER_MINUTE !== 0) return { ok: false, problem: `time "${raw}" does not start on a minute` };
  return {
    ok: true,
    time: ms / 1000,
    endMs: ms + MS_PER_MINUTE,
    inSession: sessionTimesAt(ms) !== undefined,
  };
}

function describeEnd(endMs: number): string {
  return new Date(endMs).toISOString();
}

/**
 * Reads and checks a whole bar file. Returns every symbol's bars in time order; throws a BarFileError listing
 * the refusals (each with its line) when there is any: then nothing may be written.
 */
export function readBarFile(text: string, rules: BarFileRules): BarFile {
  const { interval, isKnownSymbol, nowMs } = rules;
  const readTime = interval === '1d' ? readDailyTime : readMinuteTime;
  const times = new Map<string, TimeReading>();
  const symbols = new Map<string, string | undefined>();
  const bars = new Map<string, FileBar[]>();
  const problems: string[] = [];
  let total = 0;
  const refuse = (line: number, problem: string) => {
    total++;
    if (problems.length < MAX_LISTED_PROBLEMS) problems.push(`line ${line}: ${problem}`);
  };
  let columns: Columns | undefined;
  let rows = 0;
  let outsideSession = 0;

  forEachRecord(text, (fields, line) => {
    if (columns === undefined) {
      columns = columnsOf(fields);
      return;
    }
    rows++;
    if (fields.length !== columns.count) {
      refuse(line, `malformed line: ${fields.length} fields where the header has ${columns.count}`);
      return;
    }
    const rawTime = (fields[columns.time] as string).trim();
    let reading = times.get(rawTime);
    if (reading === undefined) {
      reading = readTime(rawTime);
      times.set(rawTime, reading);
    }
    const rawSymbol = fields[columns.symbol] as string;
    let symbol = symbols.get(rawSymbol);
    if (symbol === undefined && !symbols.has(rawSymbol)) {
      const normalized = normalizeSymbol(rawSymbol);
      symbol = isKnownSymbol(normalized) ? normalized : undefined;
      symbols.set(rawSymbol, symbol);
    }
    const open = numberOf(fields[columns.open]);
    const high = numberOf(fields[columns.high]);
    const low = numberOf(fields[columns.low]);
    const close = numberOf(fields[columns.close]);
    const volume = numberOf(fields[columns.volume]);
    const before = total;
    if (!reading.ok) refuse(line, reading.problem);
    if (symbol === undefined) {
      refuse(line, `unknown symbol "${normalizeSymbol(rawSymbol)}" (not in the universe)`);
    }
    if (!(open > 0 && high > 0 && low > 0 && close > 0) || !Number.isFinite(open + high + low + close)) {
      refuse(line, 'open, high, low and close must be numbers above zero');
    } else if (low > high) {
      refuse(line, `low ${low} is above high ${high}`);
    } else if (open < low || open > high || close < low || close > high) {
      refuse(line, `open ${open} or close ${close} is outside low..high (${low}..${high})`);
    }
    if (!Number.isFinite(volume)) refuse(line, 'volume must be a number');
    else if (volume < 0) refuse(line, `negative volume ${volume}`);
    if (!reading.ok || total > before) return;
    if (reading.endMs > nowMs) {
      refuse(
        line,
        `its ${interval === '1d' ? 'session' : 'minute'} ends at ${describeEnd(reading.endMs)}, after the service clock (${describeEnd(nowMs)}): only ended periods are history`,
      );
      return;
    }
    if (!reading.inSession) {
      outsideSession++;
      return;
    }
    const bar: FileBar = { time: reading.time, open, high, low, close, volume, line };
    const series = bars.get(symbol as string);
    if (series === undefined) bars.set(symbol as string, [bar]);
    else series.push(bar);
  });
  if (columns === undefined) throw new BarFileError(['line 1: the file is empty: a header is required'], 1);

  for (const [symbol, series] of bars) {
    series.sort((a, b) => a.time - b.time || a.line - b.line);
    for (let index = 1; index < series.length; index++) {
      const previous = series[index - 1] as FileBar;
      const bar = series[index] as FileBar;
      if (bar.time === previous.time) {
        const when =
          interval === '1d'
            ? new Date(bar.time * 1000).toISOString().slice(0, 10)
            : new Date(bar.time * 1000).toISOString();
        refuse(bar.line, `duplicate (${symbol}, ${when}): line ${previous.line} has it already`);
      }
    }
  }
  if (total > 0) throw new BarFileError(problems, total);
  return { interval, bars, rows, ignored: { outsideSession }, extraColumns: (columns as Columns).extra };
}

/** The UTC day (days since 1970-01-01) of a bar time. */
export function dayOfBarTime(time: number): number {
  return Math.floor((time * 1000) / MS_PER_DAY);
}
