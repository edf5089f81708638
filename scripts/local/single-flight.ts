/**
 * A periodic job that never overtakes itself: a call while the previous run is still going is skipped (and
 * counted), so a slow run is not joined by more and more of the same (the local clock tick, every few seconds,
 * reads every ledger: run over one another under load, they would crowd out ingestion; on AWS EventBridge
 * invokes it a minute apart).
 */
export function singleFlight(run: () => Promise<unknown>): { (): void; readonly skipped: () => number } {
  let running = false;
  let skipped = 0;
  const call = () => {
    if (running) {
      skipped++;
      return;
    }
    running = true;
    run()
      .catch(() => undefined)
      .finally(() => {
        running = false;
      });
  };
  return Object.assign(call, { skipped: () => skipped });
}
