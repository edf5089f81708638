import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

const TIMEOUT_MS = 10_000;

/** A Lambda context as the runtime hands one to each invocation, for in-process invocations. */
export function lambdaContext(functionName: string): Context {
  const deadline = Date.now() + TIMEOUT_MS;
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
