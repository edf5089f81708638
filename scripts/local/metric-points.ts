import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { METRIC_POINTS_CHANNEL, type MetricPoint } from '#runtime/metric-points';

export type MetricObserver = (point: MetricPoint) => void;

/**
 * Hears every data point any function records in this process (functions/runtime/metric-points.ts
 * publishes them); returns the function that stops hearing. Unit tests of handlers use it.
 */
export function observeMetrics(observer: MetricObserver): () => void {
  const listener = (message: unknown) => observer(message as MetricPoint);
  subscribe(METRIC_POINTS_CHANNEL, listener);
  return () => unsubscribe(METRIC_POINTS_CHANNEL, listener);
}

/** Which stack's handler is running: its points go to that stack's observer only. */
const invokingStack = new AsyncLocalStorage<MetricObserver>();
/** One subscription for every stack of the process, made by the first. */
const routeToInvokingStack = (() => {
  let routing = false;
  return () => {
    if (routing) return;
    observeMetrics((point) => invokingStack.getStore()?.(point));
    routing = true;
  };
})();

/**
 * The data points of one local stack's handlers: the stack runs each invocation through `run`, so a process
 * holding several stacks totals each one's points apart (`GET /_local/metrics`).
 */
export class StackMetricPoints {
  private readonly observers = new Set<MetricObserver>();
  private readonly deliver: MetricObserver = (point) => {
    for (const observer of this.observers) observer(point);
  };

  constructor() {
    routeToInvokingStack();
  }

  /** Runs a handler invocation; the points it records reach this stack's observers. */
  run<Result>(invocation: () => Result): Result {
    return invokingStack.run(this.deliver, invocation);
  }

  /** Hears this stack's points; returns the function that stops hearing. */
  readonly observe = (observer: MetricObserver): (() => void) => {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  };
}
