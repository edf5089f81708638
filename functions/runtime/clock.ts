import { type Clock, virtualTime } from '#domain/calendar/clock';
import { type Environment, environment } from './environment.ts';
import { memo } from './memo.ts';

export const systemClock: Clock = () => new Date();

/** The system clock, or the local stack's virtual clock when the environment configures one. */
export function clockFrom(environment: Environment): Clock {
  const { MARKET_CLOCK_START, MARKET_CLOCK_ANCHOR_MS, MARKET_CLOCK_SPEED } = environment;
  if (MARKET_CLOCK_START === undefined) return systemClock;
  const settings = {
    start: new Date(MARKET_CLOCK_START),
    anchorMs: MARKET_CLOCK_ANCHOR_MS ?? Date.now(),
    speed: MARKET_CLOCK_SPEED,
  };
  return () => virtualTime(settings, Date.now());
}

/** The clock of a Lambda instance, from its environment. */
export const clock = memo(() => clockFrom(environment()));
