import type { MetricPoint } from '#runtime/metric-points';
import { lagSummary } from './harness.ts';
import type { BenchResult } from './types.ts';

/**
 * The metrics that time a trade's way to a partner, each from the trade's time (functions/contracts/metrics.ts),
 * in the order an alert's trade meets them, and what each row says (a quote is posted within the ingest's
 * batch, before it is done: docs/adr/0024-quotes-posted-by-the-ingest.md).
 */
const HOP_ROWS: readonly [id: string, hop: string][] = [
  ['ingestWait', 'trade -> ingest starts (put on the stream, the stream to the ingest)'],
  ['ingestLag', "trade -> the ingest's batch done (ledgers, derived writes, quotes posted)"],
  ['fanOutWait', 'trade -> fan-out starts (the change record, the stream to the fan-out: alerts, states)'],
  ['tradeToPost', 'trade -> messages posted (quotes: by the ingest; alerts: by the fan-out)'],
];

export const HOP_METRICS: readonly string[] = HOP_ROWS.map(([id]) => id);

/**
 * The latency budget hop by hop (docs/benchmarks.md#the-latency-budget-hop-by-hop): how long after its trade
 * a batch reached each point the functions time (p50 and p99 over the batches, each timed by its oldest
 * trade; a point no batch reached is left out), then the bench's own end points (`ends`, one figure each).
 * Each hop's share is the difference between its row and the one before.
 */
export function hopsResult(
  title: string,
  points: readonly MetricPoint[],
  ends: readonly [hop: string, lagsMs: readonly number[]][],
): BenchResult {
  const figures: Record<string, string> = {};
  const row = (hop: string, lags: readonly number[], unit: string) => {
    const { p50, p99 } = lagSummary(lags);
    figures[hop] = `p50 ${p50} ms, p99 ${p99} ms (${lags.length} ${unit})`;
  };
  for (const [id, hop] of HOP_ROWS) {
    const lags = points.filter((point) => point.id === id).map(({ value }) => value);
    if (lags.length > 0) row(hop, lags, 'batches');
  }
  for (const [hop, lags] of ends) row(hop, lags, 'probes');
  return { name: `Latency, hop by hop: ${title}`, figures };
}
