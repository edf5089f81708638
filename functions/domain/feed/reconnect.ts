/**
 * When to try again after a connection drops or is refused (docs/data-sources.md#gaps-and-reconnects):
 * exponential backoff with "equal jitter" (half the ceiling fixed, half random), so a fleet of restarts does
 * not reconnect in step and yet every wait has a floor, capped. The attempt count starts over only after a
 * connection stayed healthy for a while (functions/use-cases/feed-connector.ts), so a server that accepts,
 * subscribes and drops at once is reconnected to at most 9 times in the first minute and then at most once
 * every 15 s. A refusal for the connection limit (the provider allows one connection per feed, and an old
 * one may still be held open for a while after a drop) waits at least a longer floor.
 */
import { backoffDelayMs } from '#domain/retry/backoff';

export interface ReconnectPolicy {
  readonly baseMs: number;
  readonly capMs: number;
  /** Floor of the wait after a connection-limit refusal or kick. */
  readonly connectionLimitFloorMs: number;
}

export const RECONNECT: ReconnectPolicy = {
  baseMs: 500,
  capMs: 30_000,
  connectionLimitFloorMs: 5_000,
};

/** The wait before reconnect attempt `attempt` (0 = the first after a drop); `random` in [0, 1). */
export function reconnectDelayMs(
  attempt: number,
  random: number,
  connectionLimit = false,
  policy: ReconnectPolicy = RECONNECT,
): number {
  const jittered = backoffDelayMs(attempt, random, {
    baseMs: policy.baseMs,
    capMs: policy.capMs,
    jitter: 'equal',
  });
  return connectionLimit ? Math.max(policy.connectionLimitFloorMs, jittered) : jittered;
}

/** The fewest connections a flapping server can get in `spanMs` (each wait at its floor), for the docs. */
export function mostConnectionsWithin(spanMs: number, policy: ReconnectPolicy = RECONNECT): number {
  let connections = 1;
  let elapsed = 0;
  for (let attempt = 0; ; attempt++) {
    elapsed += reconnectDelayMs(attempt, 0, false, policy);
    if (elapsed > spanMs) return connections;
    connections++;
  }
}
