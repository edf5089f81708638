/**
 * How `npm start` stops (docs/replay.md#back-pressure): the first Ctrl-C (SIGINT) or SIGTERM stops the stack,
 * which takes no more work and finishes within a few seconds (scripts/local/stack.ts STOP_GRACE_MS); a second
 * one exits at once, with 130 as a shell reports an interrupted command.
 */
export const EXIT_AT_ONCE = 130;

export interface StopActions {
  stop(): Promise<void>;
  exit(code: number): void;
  log(line: string): void;
}

export function onStopSignals(signals: Pick<NodeJS.EventEmitter, 'on'>, actions: StopActions): void {
  let stopping = false;
  const onSignal = () => {
    if (stopping) {
      actions.log('Stopping at once.');
      actions.exit(EXIT_AT_ONCE);
      return;
    }
    stopping = true;
    actions.log('\nStopping the local stack... (Ctrl-C again to stop at once)');
    actions.stop().then(
      () => actions.exit(0),
      (error: unknown) => {
        actions.log(
          `The local stack did not stop cleanly: ${error instanceof Error ? error.message : error}`,
        );
        actions.exit(1);
      },
    );
  };
  signals.on('SIGINT', onSignal);
  signals.on('SIGTERM', onSignal);
}
