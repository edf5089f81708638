import type { Context } from 'aws-lambda';
import { INGEST_CONSUMER_SERVICE_NAME } from '#contracts/ingest-consumer';

/**
 * The largest delay a Node timer takes (about 24.8 days). middy's early timeout sets a timer from a context's
 * remaining time: a larger one overflows to 1 ms and would fail every window at once.
 */
const NO_WINDOW_DEADLINE_MS = 2 ** 31 - 1;

/**
 * What the window handler's middleware reads of a Lambda context (its log keys, and its remaining time, which
 * a window does not have): the process's, as every window is one more "invocation" of the same function.
 */
export function windowContext(holder: string): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: INGEST_CONSUMER_SERVICE_NAME,
    functionVersion: '$LATEST',
    invokedFunctionArn: INGEST_CONSUMER_SERVICE_NAME,
    memoryLimitInMB: '0',
    awsRequestId: holder,
    logGroupName: INGEST_CONSUMER_SERVICE_NAME,
    logStreamName: holder,
    getRemainingTimeInMillis: () => NO_WINDOW_DEADLINE_MS,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
