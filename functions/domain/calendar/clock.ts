/** The current instant, passed to the domain instead of reading the system time. */
export type Clock = () => Date;

/**
 * A clock that started at `start` when the real clock read `anchorMs` and runs `speed` times as fast: the
 * local stack's `--clock` and `--speed` (a demo can watch a session at any hour).
 */
export interface VirtualClockSettings {
  readonly start: Date;
  readonly anchorMs: number;
  readonly speed: number;
}

export function virtualTime(settings: VirtualClockSettings, realMs: number): Date {
  return new Date(settings.start.getTime() + (realMs - settings.anchorMs) * settings.speed);
}
