/**
 * The service's one exponential backoff with jitter: the wait before retry `attempt` (0 = the first) is
 * drawn below a ceiling that doubles per attempt from `baseMs` up to `capMs`, so clients that failed
 * together do not retry in step. "Full" jitter draws anywhere in [0, ceiling) (the most spread, for
 * retries of a call that may succeed at once); "equal" jitter keeps half the ceiling as a floor (for
 * reconnects, where a wait of nothing would hammer a server that just dropped us). Pure: the caller passes
 * `random` in [0, 1) and sleeps itself. Used by the DynamoDB batch calls (functions/adapters/dynamo/batch.ts),
 * the Kinesis trade sink (functions/adapters/kinesis/trade-sink.ts), the feed's reconnects
 * (functions/domain/feed/reconnect.ts), the providers' REST pages (functions/adapters/feed/rest-pages.ts) and
 * the ingest consumer's shard subscriptions (functions/adapters/kinesis/shard-reader.ts).
 */
export interface Backoff {
  /** The first attempt's ceiling; it doubles per attempt. */
  readonly baseMs: number;
  /** The ceiling never grows past this (`Number.POSITIVE_INFINITY` for none). */
  readonly capMs: number;
  readonly jitter: 'full' | 'equal';
}

/** Milliseconds to wait before retry `attempt` (0 = the first retry), whole; `random` in [0, 1). */
export function backoffDelayMs(attempt: number, random: number, backoff: Backoff): number {
  const ceiling = Math.min(backoff.capMs, backoff.baseMs * 2 ** Math.max(0, attempt));
  const floor = backoff.jitter === 'equal' ? ceiling / 2 : 0;
  return Math.floor(floor + (ceiling - floor) * random);
}
