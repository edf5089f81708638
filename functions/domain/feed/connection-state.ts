/**
 * What a feed connector says about its connection (docs/data-sources.md#the-status-line): connected, or
 * (re)connecting since when, and whether a gap of the session is open (trades printed while no connection
 * received them, not yet filled from REST nor recorded) since when.
 */
export type FeedPhase = 'connecting' | 'connected' | 'reconnecting' | 'stopped';

export interface FeedConnectionState {
  readonly feed: string;
  readonly phase: FeedPhase;
  /** When the phase began (unix ms). */
  readonly sinceMs: number;
  /** The start of the gap not yet filled or recorded (the last trade received before it), if one is open. */
  readonly gapOpenSinceMs?: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** `alpaca connected`, `polygon-stocks reconnecting since <ISO>, gap open since <ISO>`. */
export function describeFeedState(state: FeedConnectionState): string {
  const phase = state.phase === 'connected' ? 'connected' : `${state.phase} since ${iso(state.sinceMs)}`;
  const gap = state.gapOpenSinceMs === undefined ? '' : `, gap open since ${iso(state.gapOpenSinceMs)}`;
  return `${state.feed} ${phase}${gap}`;
}
