import { METRICS, type MetricId } from '#contracts/metrics';
import type { MetricPoint } from '#runtime/metric-points';
import type { MetricObserver } from './metric-points.ts';
import type { HttpAnswer } from './rest-gateway.ts';

/** Where the totals are served (loopback only, as every `/_local/` path). */
export const LOCAL_METRICS_PATH = '/_local/metrics';
/** How often the console summary is printed. */
export const METRICS_SUMMARY_SECONDS = 30;

interface Series {
  readonly id: MetricId;
  readonly dimensionValue?: string;
  count: number;
  sum: number;
  max: number;
}

/** One metric as `GET /_local/metrics` reports it. */
export interface MetricTotals {
  readonly name: string;
  readonly dimension?: { readonly name: string; readonly value: string };
  /** Data points recorded, their sum and their largest value. */
  readonly count: number;
  readonly sum: number;
  readonly max: number;
}

const keyOf = ({ id, dimensionValue }: { id: MetricId; dimensionValue?: string }) =>
  `${id}\u0000${dimensionValue ?? ''}`;

function totalsOf(series: Iterable<Series>): MetricTotals[] {
  return [...series].map(({ id, dimensionValue, count, sum, max }) => {
    const definition = METRICS[id];
    return {
      name: definition.name,
      ...('dimension' in definition && dimensionValue !== undefined
        ? { dimension: { name: definition.dimension, value: dimensionValue } }
        : {}),
      count,
      sum,
      max,
    };
  });
}

function add(store: Map<string, Series>, point: MetricPoint): void {
  const key = keyOf(point);
  const series = store.get(key) ?? {
    id: point.id,
    dimensionValue: point.dimensionValue,
    count: 0,
    sum: 0,
    max: Number.NEGATIVE_INFINITY,
  };
  series.count += 1;
  series.sum += point.value;
  series.max = Math.max(series.max, point.value);
  store.set(key, series);
}

/**
 * The local stack's view of the functions' metrics (docs/operations.md#metrics, no CloudWatch here): every
 * data point the handlers record, totalled since the start (`GET /_local/metrics`) and per window (the
 * console's one-line summary every 30 s at `--log-level INFO` or more verbose).
 */
export class LocalMetrics {
  readonly startedAt = new Date();
  private readonly total = new Map<string, Series>();
  private window = new Map<string, Series>();
  private readonly stopObserving: () => void;

  /** `observe`: the stack's points (scripts/local/metric-points.ts StackMetricPoints). */
  constructor(observe: (observer: MetricObserver) => () => void) {
    this.stopObserving = observe((point) => {
      add(this.total, point);
      add(this.window, point);
    });
  }

  /** Everything recorded since the start. */
  document(): { since: string; metrics: MetricTotals[] } {
    return { since: this.startedAt.toISOString(), metrics: totalsOf(this.total.values()) };
  }

  /**
   * A metric's sum since the start, over all its dimension values, or of one (a `TradesRefused` reason) when
   * given.
   */
  sumOf(name: string, dimensionValue?: string): number {
    return this.document()
      .metrics.filter(
        (metric) =>
          metric.name === name &&
          (dimensionValue === undefined || metric.dimension?.value === dimensionValue),
      )
      .reduce((sum, metric) => sum + metric.sum, 0);
  }

  /** One line for the window since the last call (then a new window starts); undefined when nothing happened. */
  summaryLine(windowSeconds: number): string | undefined {
    const window = this.window;
    this.window = new Map();
    if (window.size === 0) return undefined;
    const sum = (id: MetricId) =>
      [...window.values()].filter((s) => s.id === id).reduce((t, s) => t + s.sum, 0);
    const max = (id: MetricId) =>
      Math.max(0, ...[...window.values()].filter((s) => s.id === id).map((s) => s.max));
    const refused = [...window.values()]
      .filter((s) => s.id === 'tradesRefused')
      .map((s) => `${s.dimensionValue} ${s.sum}`)
      .join(', ');
    return (
      `metrics (${windowSeconds} s): trades applied ${sum('tradesApplied')}, late prints ${sum('latePrints')}, ` +
      `refused ${sum('tradesRefused')}${refused ? ` (${refused})` : ''}, ingest lag max ${max('ingestLag')} ms; ` +
      `alerts ${sum('alertsFired')}, breaks ${sum('breaksFired')}, states ${sum('stateChanges')}; ` +
      `pushes ${sum('pushesSent')} sent in ${sum('pushFrames')} frames, ${sum('pushesGone')} gone, ${sum('pushesFailed')} failed, ` +
      `push lag max ${max('pushLag')} ms; dead-lettered ${sum('deadLettered')}`
    );
  }

  stop(): void {
    this.stopObserving();
  }
}

export function metricsAnswer(metrics: LocalMetrics): HttpAnswer {
  return {
    statusCode: 200,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(metrics.document()),
  };
}
