import * as z from 'zod/mini';
import { virtualTime } from './virtual-clock.ts';

const clockSchema = z.object({
  clock: z.nullable(z.object({ start: z.iso.datetime(), anchorMs: z.number(), speed: z.number() })),
});

/**
 * The service clock of the local stack at `origin` (`GET /_local/clock`, scripts/local/control-plane.ts), as
 * Unix ms now: the stack's virtual time when it runs on `--clock`/`--speed`, undefined on the wall clock or
 * when the stack does not say (an older stack).
 */
export async function localServiceClock(origin: string): Promise<(() => number) | undefined> {
  let json: unknown;
  try {
    const response = await fetch(new URL('/_local/clock', origin));
    if (!response.ok) return undefined;
    json = await response.json();
  } catch {
    return undefined;
  }
  const parsed = clockSchema.safeParse(json);
  if (!parsed.success || parsed.data.clock === null) return undefined;
  const settings = { ...parsed.data.clock, start: new Date(parsed.data.clock.start) };
  return () => virtualTime(settings, Date.now()).getTime();
}
