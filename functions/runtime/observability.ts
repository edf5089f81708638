import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { logContext } from './logger.ts';
import { metrics } from './metrics.ts';

/**
 * The logging and metrics middlewares of every Lambda entry point (docs/operations.md#metrics): the Lambda
 * context in every log line (request id, cold start; keys reset per invocation), and the metrics the
 * invocation recorded flushed as EMF at its end (with a cold-start metric). Fresh instances per handler: the
 * local stack runs every handler in one process. Every entry but the REST handlers uses them, with tracing
 * (functions/runtime/lambda-handler.ts); the REST handlers carry only the log context and count their client
 * errors in log lines (functions/runtime/client-errors.ts), to keep their bundles lean
 * (docs/adr/0013-lean-lambda-bundles.md).
 */
export function observability() {
  return [logContext(), logMetrics(metrics, { captureColdStartMetric: true })];
}
