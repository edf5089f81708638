import type { Tracer } from '@aws-lambda-powertools/tracer';
import { SERVICE_NAME } from '#contracts/runtime-settings';
import { instrumentClientsWith } from './sdk-clients.ts';

/**
 * Whether this process traces: on Lambda, unless `POWERTOOLS_TRACE_ENABLED=false` (the local stack sets it,
 * as there is no X-Ray there).
 */
export const TRACING_ENABLED = process.env.POWERTOOLS_TRACE_ENABLED !== 'false';

/**
 * The Powertools Tracer of the functions that are not REST handlers (docs/operations.md#metrics): each
 * invocation is a segment (the Lambda's active tracing), and every AWS SDK client made in functions/runtime/
 * is captured from the moment this module is imported, so a trace shows each DynamoDB, SQS and API Gateway
 * call. Annotations carry no key, secret or key-derived value.
 *
 * Where tracing is off, the Tracer (and the X-Ray SDK under it) is not even loaded: loading the X-Ray SDK
 * installs async hooks that run on every promise the process makes (its context propagation), about a tenth
 * of the local stack's CPU while a session streams (docs/benchmarks.md#a-simulated-session-keeps-up).
 */
export const tracer: Tracer | undefined = TRACING_ENABLED ? await startTracer() : undefined;

async function startTracer(): Promise<Tracer> {
  const { Tracer } = await import('@aws-lambda-powertools/tracer');
  const started = new Tracer({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? SERVICE_NAME });
  instrumentClientsWith((client) => started.captureAWSv3Client(client));
  return started;
}
