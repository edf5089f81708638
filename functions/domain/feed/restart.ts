/**
 * Where a restarted connector starts filling (docs/data-sources.md#a-restart-loses-nothing): from its stored
 * position, the trade time through which everything received was put, but never before the open of the
 * latest session that opened at or before now. A position from an earlier session (the connector was down
 * overnight, or for days) fills the current session from its open only: the service's bars of earlier
 * sessions are the backfill's to repair (docs/backfill.md), not a live connector's.
 */
import { previousSession, sessionOn } from '../calendar/sessions.ts';
import { newYorkDate } from '../calendar/time-zone.ts';

/** The open (unix ms) of the latest session that opened at or before `nowMs`, if any in the calendar. */
export function latestSessionOpenMs(nowMs: number): number | undefined {
  const date = newYorkDate(new Date(nowMs));
  const today = sessionOn(date);
  if (today !== undefined && today.open.getTime() <= nowMs) return today.open.getTime();
  return previousSession(date)?.open.getTime();
}

/** The start of the gap a restart fills: the position, bounded below by the latest session's open. */
export function restartGapStartMs(positionMs: number, latestOpenMs: number | undefined): number {
  return latestOpenMs === undefined ? positionMs : Math.max(positionMs, latestOpenMs);
}
