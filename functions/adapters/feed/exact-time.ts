/**
 * Provider timestamps as Unix milliseconds, exactly (docs/data-sources.md#exact-time): a time is floored to
 * its millisecond through its digits, never through a 64-bit float, which holds a nanosecond epoch (about
 * 1.7e18) only to the nearest 256 ns and so can carry 15:11:59.999999999 into the next minute.
 */

const RFC_3339 = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/i;

/** Unix ms of an RFC 3339 timestamp (Alpaca's, up to nine fraction digits), floored; NaN when not one. */
export function epochMsOf(rfc3339: unknown): number {
  if (typeof rfc3339 !== 'string') return Number.NaN;
  const match = RFC_3339.exec(rfc3339);
  if (match === null) return Number.NaN;
  const [, seconds, fraction = '', offset] = match;
  const wholeSeconds = Date.parse(`${seconds}${offset?.toUpperCase()}`);
  return wholeSeconds + Number(fraction.slice(0, 3).padEnd(3, '0'));
}

/**
 * Unix ms of a Unix-nanosecond timestamp, floored: from its decimal digits (a string, as the REST pages are
 * read: readBigIntegers below) or a bigint; a JS number only when it is a safe integer. NaN otherwise.
 */
export function epochMsOfNanos(nanos: unknown): number {
  let value: bigint;
  if (typeof nanos === 'bigint') value = nanos;
  else if (typeof nanos === 'string' && /^\d{1,30}$/.test(nanos)) value = BigInt(nanos);
  else if (typeof nanos === 'number' && Number.isSafeInteger(nanos) && nanos >= 0) value = BigInt(nanos);
  else return Number.NaN;
  return Number(value / 1_000_000n);
}

/**
 * JSON text parsed with the integers of the named fields kept as their decimal strings (JSON.parse would
 * round them to a float). Only bare integers are rewritten; anything else of those names is left as it is.
 */
export function parseJsonKeepingIntegers(text: string, fields: readonly string[]): unknown {
  if (fields.length === 0) return JSON.parse(text);
  const names = fields.map((field) => field.replace(/[^\w]/g, '')).join('|');
  const integer = new RegExp(`"(${names})"(\\s*:\\s*)(-?\\d+)(?=\\s*[,}])`, 'g');
  return JSON.parse(text.replace(integer, '"$1"$2"$3"'));
}
