/**
 * A clock that started at `start` when the real clock read `anchorMs` and runs `speed` times as fast: the
 * local stack's `--clock` and `--speed` (a demo can watch a session at any hour). The functions never see
 * these settings: the local stack hands its handlers this clock (scripts/local/handlers.ts), and on AWS they
 * read the system's (functions/runtime/clock.ts).
 */
export interface VirtualClockSettings {
  readonly start: Date;
  readonly anchorMs: number;
  readonly speed: number;
}

export function virtualTime(settings: VirtualClockSettings, realMs: number): Date {
  return new Date(settings.start.getTime() + (realMs - settings.anchorMs) * settings.speed);
}
