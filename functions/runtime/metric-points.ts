import type { MetricId } from '#contracts/metrics';

/**
 * Every data point a function records, as the local stack sees it: CloudWatch is not there, so the local
 * stack's `GET /_local/metrics` and console summary hear the points here (scripts/local/metrics-summary.ts).
 * Both ways a function records a metric report to it: EMF through Powertools (functions/runtime/metrics.ts)
 * and the REST handlers' client-error log lines (functions/runtime/client-errors.ts).
 */
export interface MetricPoint {
  readonly id: MetricId;
  readonly value: number;
  readonly dimensionValue?: string;
}

const observers = new Set<(point: MetricPoint) => void>();

/** Hears every data point; returns the function that stops hearing. */
export function observeMetrics(observer: (point: MetricPoint) => void): () => void {
  observers.add(observer);
  return () => observers.delete(observer);
}

/** Tells the observers of a data point just recorded. */
export function reportMetricPoint(id: MetricId, value: number, dimensionValue?: string): void {
  for (const observer of observers)
    observer({ id, value, ...(dimensionValue === undefined ? {} : { dimensionValue }) });
}
