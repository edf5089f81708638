/**
 * `run` once per minute of the service clock, as EventBridge invokes the clock tick on AWS: the local timer
 * fires every few seconds (so a demo at `--speed 60` rolls periods within seconds of real time), and a call in
 * the minute of the last run resolves to undefined without running. A clock moved to another minute (back or
 * forth, by the control plane) runs it again, and so does the next call after a run that failed.
 */
export function oncePerClockMinute<Args extends unknown[], Result>(
  nowMs: () => number,
  run: (...args: Args) => Promise<Result>,
): (...args: Args) => Promise<Result | undefined> {
  let lastMinute: number | undefined;
  return async (...args) => {
    const minute = Math.floor(nowMs() / 60_000);
    if (minute === lastMinute) return undefined;
    lastMinute = minute;
    try {
      return await run(...args);
    } catch (error) {
      // Tried again at the next call, as EventBridge retries a failed invocation.
      lastMinute = undefined;
      throw error;
    }
  };
}
