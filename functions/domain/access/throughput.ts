import { REST_THROTTLE, REST_THROTTLE_VOLATILE, VOLATILE_PERIODS } from '#contracts/throttling';
import { sessionAt } from '#domain/calendar/sessions';

const MS_PER_MINUTE = 60_000;

export interface RestLimits {
  readonly rateLimit: number;
  readonly burstLimit: number;
}

export type ThroughputReason = 'base' | 'session_open' | 'session_close' | 'simultaneous_breaks';

export interface RestThroughput extends RestLimits {
  readonly reason: ThroughputReason;
}

/**
 * Each key's REST throughput at an instant (docs/partner-guide.md#limits-and-throttling): the volatile
 * figures in the first and last 30 minutes of a regular session (the calendar's: an early close moves the
 * last half hour with it) and for 15 minutes after a simultaneous break; the base figures otherwise.
 */
export function restThroughputAt(nowMs: number, lastBreakAtMs?: number): RestThroughput {
  if (
    lastBreakAtMs !== undefined &&
    nowMs - lastBreakAtMs < VOLATILE_PERIODS.afterBreakMinutes * MS_PER_MINUTE
  ) {
    return { ...REST_THROTTLE_VOLATILE, reason: 'simultaneous_breaks' };
  }
  const session = sessionAt(new Date(nowMs));
  if (session !== undefined) {
    if (nowMs < session.open.getTime() + VOLATILE_PERIODS.afterOpenMinutes * MS_PER_MINUTE) {
      return { ...REST_THROTTLE_VOLATILE, reason: 'session_open' };
    }
    if (nowMs >= session.close.getTime() - VOLATILE_PERIODS.beforeCloseMinutes * MS_PER_MINUTE) {
      return { ...REST_THROTTLE_VOLATILE, reason: 'session_close' };
    }
  }
  return { ...REST_THROTTLE, reason: 'base' };
}

export function sameLimits(a: RestLimits | undefined, b: RestLimits): boolean {
  return a?.rateLimit === b.rateLimit && a?.burstLimit === b.burstLimit;
}
