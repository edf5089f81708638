import type { Clock } from '#domain/calendar/clock';

export const systemClock: Clock = () => new Date();

/**
 * The service clock of a Lambda instance: the system's. The local stack's `--clock`/`--speed` never reach
 * the functions' configuration; it passes its own clock to each handler's `createHandler`
 * (scripts/local/handlers.ts).
 */
export const clock = (): Clock => systemClock;
