/**
 * The `time` column of the files operators bring (docs/replay.md#file-formats-csv-with-a-header-columns-in-any-order-names-case-insensitive,
 * docs/backfill.md#file-format): ISO 8601 (with an offset or Z; a plain date-time is UTC) or Unix seconds.
 * Shared by `npm run replay` and `npm run backfill`, so both read a time the same way.
 */

/**
 * Unix seconds from this value on (year 5138) are refused: such a number is almost surely Unix milliseconds
 * (every instant since 1973 is beyond it in milliseconds), which read as seconds would land far outside the
 * calendar and be counted invalid, line after line, instead of being reported once.
 */
export const MILLISECONDS_LIKE_SECONDS = 1e11;

const UNIX_SECONDS = /^\d+(\.\d+)?$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/;
const ZONED = /(Z|[+-]\d{2}:?\d{2})$/i;

/** Unix milliseconds of an ISO 8601 time or of Unix seconds (integer or decimal); undefined for anything else. */
export function parseFileTime(raw: string): number | undefined {
  const text = raw.trim();
  if (UNIX_SECONDS.test(text)) return Math.round(Number(text) * 1000);
  if (!ISO_DATE_TIME.test(text)) return undefined;
  const zoned = ZONED.test(text) ? text : `${text}Z`;
  const ms = Date.parse(zoned.replace(' ', 'T'));
  return Number.isFinite(ms) ? ms : undefined;
}

/** Why a time cannot be read (undefined: it can), in words that name the value. */
export function fileTimeProblem(raw: string): string | undefined {
  if (UNIX_SECONDS.test(raw.trim()) && Number(raw) >= MILLISECONDS_LIKE_SECONDS) {
    return `time "${raw}" looks like Unix milliseconds; give Unix seconds or ISO 8601`;
  }
  if (parseFileTime(raw) === undefined) return `time "${raw}" is neither ISO 8601 nor Unix seconds`;
  return undefined;
}
