import { channel } from 'node:diagnostics_channel';
import type { MetricId } from '#contracts/metrics';

/**
 * Every data point a function records, published on a Node diagnostics channel: on AWS nothing subscribes
 * (CloudWatch hears the EMF and the log lines), so publishing costs a check; the local stack subscribes to
 * total them, as it has no CloudWatch (scripts/local/metric-points.ts). Both ways a function records a
 * metric publish here: EMF through Powertools (functions/runtime/metrics.ts) and the REST handlers'
 * client-error log lines (functions/runtime/client-errors.ts).
 */
export interface MetricPoint {
  readonly id: MetricId;
  readonly value: number;
  readonly dimensionValue?: string;
}

/** The channel's name (`node:diagnostics_channel` names are process-wide, hence the prefix). */
export const METRIC_POINTS_CHANNEL = 'market-data-alerts:metric-point';

const points = channel(METRIC_POINTS_CHANNEL);

/** Publishes a data point just recorded, when anything listens. */
export function reportMetricPoint(id: MetricId, value: number, dimensionValue?: string): void {
  if (!points.hasSubscribers) return;
  const point: MetricPoint = { id, value, ...(dimensionValue === undefined ? {} : { dimensionValue }) };
  points.publish(point);
}
