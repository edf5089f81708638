/**
 * When to try again after a connection drops or is refused (docs/data-sources.md#gaps-and-reconnects):
 * exponential backoff with full jitter, so a fleet of restarts does not reconnect in step, capped. A refusal
 * for the connection limit (the provider allows one connection per feed, and an old one may still be held
 * open for a while after a drop) starts at a longer floor.
 */
export const RECONNECT = {
  baseMs: 500,
  capMs: 30_000,
  /** Floor of the wait after a connection-limit refusal. */
  connectionLimitFloorMs: 5_000,
} as const;

/** The wait before reconnect attempt `attempt` (0 = the first after a drop); `random` in [0, 1). */
export function reconnectDelayMs(attempt: number, random: number, connectionLimit = false): number {
  const ceiling = Math.min(RECONNECT.capMs, RECONNECT.baseMs * 2 ** Math.max(0, attempt));
  const jittered = Math.floor(ceiling * random);
  return connectionLimit ? Math.max(RECONNECT.connectionLimitFloorMs, jittered) : jittered;
}
