import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { logContext } from './logger.ts';
import { metrics } from './metrics.ts';
import { tracer } from './tracer.ts';

/**
 * A Lambda entry point that is not a REST handler (the authorizer, the WebSocket routes, ingest, fan-out and
 * the schedules), with the observability middlewares (docs/operations.md#metrics): the Lambda context in
 * every log line, a trace segment for the invocation with its AWS SDK calls traced where tracing is on
 * (functions/runtime/tracer.ts), and the metrics it recorded flushed as EMF at its end (with a cold-start
 * metric). Fresh instances per handler: the local stack runs every handler in one process.
 *
 * REST handlers go through functions/runtime/rest-handler.ts instead: the log context only, their client
 * errors counted in log lines (functions/runtime/client-errors.ts), so their bundles carry neither the X-Ray
 * SDK nor the EMF library (docs/adr/0013-lean-lambda-bundles.md).
 */
export function instrumented<Event, Result>(handler: (event: Event, context: Context) => Promise<Result>) {
  return middy<Event, Result>()
    .use([
      logContext(),
      ...(tracer === undefined ? [] : [captureLambdaHandler(tracer, { captureResponse: false })]),
      logMetrics(metrics, { captureColdStartMetric: true }),
    ])
    .handler(handler);
}
