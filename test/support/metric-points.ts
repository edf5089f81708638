import type { MetricPoint } from '#runtime/metric-points';
import { observeMetrics } from '#scripts/local/metric-points';

/** Runs `run` and returns what it returned with every metric point it recorded. */
export async function withMetrics<T>(run: () => Promise<T>): Promise<{ result: T; points: MetricPoint[] }> {
  const points: MetricPoint[] = [];
  const stop = observeMetrics((point) => points.push(point));
  try {
    return { result: await run(), points };
  } finally {
    stop();
  }
}

/** The sum of the points of metric `id` (with the dimension value `dimension`, or none). */
export const sumOf = (points: readonly MetricPoint[], id: string, dimension?: string) =>
  points
    .filter((point) => point.id === id && point.dimensionValue === dimension)
    .reduce((sum, point) => sum + point.value, 0);
