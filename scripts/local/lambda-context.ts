import { randomUUID } from 'node:crypto';
import { InvokeStore, InvokeStoreBase } from '@aws/lambda-invoke-store';
import type { Context } from 'aws-lambda';

/** The service functions' default timeout (lib/constructs/service-function.ts). */
const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * A Lambda context as the runtime hands one to each invocation, for in-process invocations, with the
 * function's timeout as deployed: the handlers' middleware fails an invocation that runs past it, as Lambda
 * does (a stream batch is then delivered again).
 */
export function lambdaContext(functionName: string, timeoutMs = DEFAULT_TIMEOUT_MS): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/**
 * The Lambda runtime's invocation store, as it is when a function runs invocations concurrently: Powertools
 * keeps each invocation's log keys and Lambda context there, so the local stack, which runs every handler in
 * one process, never mixes one invocation's context into another's log lines (docs/architecture.md#local-stack-the-same-code-on-embedded-parts).
 */
const invokeStore = (async () => {
  // Read by Powertools (and the runtime) at every access: invocations may run concurrently here.
  process.env.AWS_LAMBDA_MAX_CONCURRENCY ??= '1000';
  return InvokeStore.getInstanceAsync(true);
})();

/** Runs one invocation of a handler in its own invocation context, with its own Lambda context. */
export async function invokeLocally<Result>(
  functionName: string,
  run: (context: Context) => Promise<Result>,
  timeoutMs?: number,
): Promise<Result> {
  const context = lambdaContext(functionName, timeoutMs);
  const store = await invokeStore;
  return store.run({ [InvokeStoreBase.PROTECTED_KEYS.REQUEST_ID]: context.awsRequestId }, () => run(context));
}
