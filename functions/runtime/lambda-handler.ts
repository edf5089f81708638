import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { logger } from './logger.ts';
import { metrics } from './metrics.ts';
import { tracer } from './tracer.ts';

/**
 * The observability middlewares of every Lambda entry point (docs/operations.md#metrics): the Lambda context in
 * every log line (request id, cold start; keys reset per invocation), a trace segment for the invocation, and
 * the metrics it recorded flushed as EMF at its end (with a cold-start metric). Fresh instances per handler:
 * the local stack runs every handler in one process.
 */
export function observability() {
  return [
    injectLambdaContext(logger, { resetKeys: true }),
    captureLambdaHandler(tracer, { captureResponse: false }),
    logMetrics(metrics, { captureColdStartMetric: true }),
  ];
}

/** A Lambda entry point with the observability middlewares (REST handlers get them in rest-handler.ts). */
export function instrumented<Event, Result>(handler: (event: Event, context: Context) => Promise<Result>) {
  return middy<Event, Result>().use(observability()).handler(handler);
}
