import { INGEST } from '#contracts/routes';
import type { LocalMetrics } from '../local/metrics-summary.ts';

/** Trades the local stack's ingest has counted so far: applied, and refused by reason. */
export interface TradeCounts {
  readonly applied: number;
  /** Symbol states written. */
  readonly stateChanges: number;
  readonly refused: Readonly<Record<string, number>>;
}

export function tradeCounts(metrics: LocalMetrics): TradeCounts {
  const refused: Record<string, number> = {};
  let applied = 0;
  let stateChanges = 0;
  for (const metric of metrics.document().metrics) {
    if (metric.name === 'TradesApplied') applied += metric.sum;
    if (metric.name === 'StateChanges') stateChanges += metric.sum;
    if (metric.name === 'TradesRefused') {
      const reason = metric.dimension?.value ?? 'unknown';
      refused[reason] = (refused[reason] ?? 0) + metric.sum;
    }
  }
  return { applied, stateChanges, refused };
}

const total = (counts: TradeCounts) =>
  counts.applied + Object.values(counts.refused).reduce((sum, count) => sum + count, 0);

function describe(counts: TradeCounts, since: TradeCounts): string {
  const refused = Object.entries(counts.refused)
    .map(([reason, count]) => [reason, count - (since.refused[reason] ?? 0)] as const)
    .filter(([, count]) => count > 0)
    .map(([reason, count]) => `${reason} ${count}`)
    .join(', ');
  return `${counts.applied - since.applied} applied, refused: ${refused || 'none'}`;
}

/**
 * Waits for `work` (the stream's flush) while watching the ingest's counts: fails loudly when the trades
 * counted stop moving for `stallSeconds` (by default longer than one ingest invocation may run), and when any of the `expected` trades timed was refused. A benchmark
 * never times refusals, and never waits for ever.
 */
export async function expectApplied(
  metrics: LocalMetrics,
  since: TradeCounts,
  expected: number,
  work: Promise<void>,
  what: string,
  stallSeconds = INGEST.timeoutSeconds + 30,
): Promise<void> {
  let lastTotal = total(since);
  let lastMovedMs = Date.now();
  let lastReportMs = Date.now();
  let watching: ReturnType<typeof setInterval> | undefined;
  const stalled = new Promise<never>((_, reject) => {
    watching = setInterval(() => {
      const counts = tradeCounts(metrics);
      if (Date.now() - lastReportMs >= 10_000) {
        lastReportMs = Date.now();
        process.stderr.write(`${what}: ${describe(counts, since)} of ${expected} trades so far\n`);
      }
      if (total(counts) !== lastTotal) {
        lastTotal = total(counts);
        lastMovedMs = Date.now();
      } else if (Date.now() - lastMovedMs > stallSeconds * 1000) {
        reject(
          new Error(
            `${what}: stalled, nothing counted for ${stallSeconds} s (${describe(counts, since)} of ${expected} trades)`,
          ),
        );
      }
    }, 500);
  });
  try {
    await Promise.race([work, stalled]);
  } finally {
    clearInterval(watching);
  }
  const counts = tradeCounts(metrics);
  const applied = counts.applied - since.applied;
  if (applied !== expected || total(counts) - total(since) !== expected)
    throw new Error(`${what}: expected ${expected} trades applied, counted ${describe(counts, since)}`);
}
