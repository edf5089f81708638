import { afterEach, describe, expect, it } from 'vitest';
import { METRICS, METRICS_NAMESPACE } from '#contracts/metrics';
import { metrics, recordCounts, recordMetric } from '#runtime/metrics';
import { observeMetrics } from '#scripts/local/metric-points';

afterEach(() => metrics.clearMetrics());

describe('recordMetric', () => {
  it('adds a catalogued metric to the invocation’s EMF document, under the service namespace', () => {
    recordMetric('tradesApplied', 42);
    const emf = metrics.serializeMetrics() as unknown as {
      _aws: { CloudWatchMetrics: { Namespace: string; Metrics: { Name: string; Unit: string }[] }[] };
      TradesApplied: number;
    };
    expect(emf._aws.CloudWatchMetrics[0]?.Namespace).toBe(METRICS_NAMESPACE);
    expect(emf._aws.CloudWatchMetrics[0]?.Metrics).toEqual([
      { Name: METRICS.tradesApplied.name, Unit: 'Count' },
    ]);
    expect(emf.TradesApplied).toBe(42);
  });

  it('tells observers every point, with its dimension value, and skips zero counts', () => {
    const seen: unknown[] = [];
    const stop = observeMetrics((point) => seen.push(point));
    recordMetric('authorizerOutcomes', 1, '403:insufficient_scope');
    recordCounts('tradesRefused', { late: 2, future: 0 });
    recordMetric('ingestLag', Number.NaN);
    stop();
    recordMetric('tradesApplied', 1);
    expect(seen).toEqual([
      { id: 'authorizerOutcomes', value: 1, dimensionValue: '403:insufficient_scope' },
      { id: 'tradesRefused', value: 2, dimensionValue: 'late' },
    ]);
  });
});
