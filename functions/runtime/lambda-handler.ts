import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { observability } from './observability.ts';
import { tracer } from './tracer.ts';

/**
 * A Lambda entry point that is not a REST handler (the authorizer, the WebSocket routes, ingest, fan-out and
 * the schedules), with the logging and metrics middlewares, a trace segment for the invocation, and its AWS
 * SDK calls traced (functions/runtime/tracer.ts). REST handlers go through functions/runtime/rest-handler.ts.
 */
export function instrumented<Event, Result>(handler: (event: Event, context: Context) => Promise<Result>) {
  return middy<Event, Result>()
    .use([...observability(), captureLambdaHandler(tracer, { captureResponse: false })])
    .handler(handler);
}
