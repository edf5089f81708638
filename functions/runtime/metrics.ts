import { Metrics } from '@aws-lambda-powertools/metrics';
import type { MetricUnit } from '@aws-lambda-powertools/metrics/types';
import { METRICS, METRICS_NAMESPACE, METRICS_NAMESPACE_ENV, type MetricId } from '#contracts/metrics';
import { SERVICE_NAME } from '#contracts/runtime-settings';
import { logger } from './logger.ts';
import { reportMetricPoint } from './metric-points.ts';

/** The functions' one Powertools Metrics instance (EMF to stdout, flushed after each invocation). */
export const metrics = new Metrics({
  namespace: process.env[METRICS_NAMESPACE_ENV] ?? METRICS_NAMESPACE,
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? SERVICE_NAME,
  // An invocation that recorded nothing (a heartbeat with no connection) is normal: Powertools' warning
  // about the empty flush goes to debug, not to every such invocation's log at WARN.
  logger: {
    trace: (...args: unknown[]) => logger.debug(String(args[0] ?? '')),
    debug: (...args: unknown[]) => logger.debug(String(args[0] ?? '')),
    info: (...args: unknown[]) => logger.info(String(args[0] ?? '')),
    warn: (...args: unknown[]) => logger.debug(String(args[0] ?? '')),
    error: (...args: unknown[]) => logger.error(String(args[0] ?? '')),
  },
});

export type { MetricPoint } from './metric-points.ts';

/**
 * Records a data point of a catalogued metric (functions/contracts/metrics.ts). A metric with a dimension
 * goes out as a single metric with that dimension's value; one without joins the invocation's flush.
 */
export function recordMetric(id: MetricId, value: number, dimensionValue?: string): void {
  if (!Number.isFinite(value)) return;
  const definition = METRICS[id];
  const unit = definition.unit as MetricUnit;
  if ('dimension' in definition && dimensionValue !== undefined) {
    const single = metrics.singleMetric();
    single.addDimension(definition.dimension, dimensionValue);
    single.addMetric(definition.name, unit, value);
  } else {
    metrics.addMetric(definition.name, unit, value);
  }
  reportMetricPoint(id, value, dimensionValue);
}

/** Records one data point per key of `counts` (e.g. refused trades by reason), skipping zeros. */
export function recordCounts(id: MetricId, counts: Readonly<Record<string, number>>): void {
  for (const [dimensionValue, value] of Object.entries(counts)) {
    if (value > 0) recordMetric(id, value, dimensionValue);
  }
}

/** What one invocation's pushes came to (the fan-out's, the ingest's quotes), as the push metrics. */
export function recordPushCounts(counts: {
  readonly sent: number;
  readonly frames: number;
  readonly gone: number;
  /** Events that did not reach every subscriber. */
  readonly failed: number;
  /** Connections closed because their access was withdrawn. */
  readonly closed: number;
  readonly usageUnrecorded: number;
}): void {
  recordMetric('pushesSent', counts.sent);
  recordMetric('pushFrames', counts.frames);
  recordMetric('pushesGone', counts.gone);
  recordMetric('pushesFailed', counts.failed);
  if (counts.usageUnrecorded > 0) recordMetric('usageRowsUnrecorded', counts.usageUnrecorded);
  if (counts.closed > 0) recordMetric('refusals', counts.closed, 'access-withdrawn');
}
