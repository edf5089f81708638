import * as z from 'zod/mini';
import { sessionAt } from './sessions.ts';
import { formatNewYorkIso, NEW_YORK_TIME_ZONE } from './time-zone.ts';

/**
 * Market status (GET /market-status; docs/partner-guide.md#market-status-object). Only the NYSE regular
 * session counts: open while open <= now < close of a session; pre-market, after hours, weekends and holidays
 * are closed, and then every session string is empty. Times are ISO 8601 with offset in America/New_York, to
 * the second.
 */
/**
 * The market status object (docs/partner-guide.md#market-status-object; the interface below is its TypeScript
 * form).
 */
export const marketStatusSchema = z.object({
  market: z.literal('stocks'),
  timezone: z.literal('America/New_York'),
  is_open: z.boolean(),
  session: z.object({
    label: z.string(),
    session_date: z.union([z.iso.date(), z.literal('')]),
    open_ts: z.union([z.iso.datetime({ offset: true }), z.literal('')]),
    close_ts: z.union([z.iso.datetime({ offset: true }), z.literal('')]),
  }),
  now: z.iso.datetime({ offset: true }),
});

export interface MarketStatus {
  market: 'stocks';
  timezone: 'America/New_York';
  is_open: boolean;
  session: { label: string; session_date: string; open_ts: string; close_ts: string };
  now: string;
}

const RTH_LABEL = 'RTH';

const NO_SESSION = { label: '', session_date: '', open_ts: '', close_ts: '' };

/** The status at `now`; a RangeError outside the calendar's range (1990-2099). */
export function marketStatus(now: Date): MarketStatus {
  const session = sessionAt(now);
  return {
    market: 'stocks',
    timezone: NEW_YORK_TIME_ZONE,
    is_open: session !== undefined,
    session:
      session === undefined
        ? { ...NO_SESSION }
        : {
            label: RTH_LABEL,
            session_date: session.date,
            open_ts: formatNewYorkIso(session.open),
            close_ts: formatNewYorkIso(session.close),
          },
    now: formatNewYorkIso(now),
  };
}
