import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { SERVICE_NAME } from '#contracts/runtime-settings';

/** The one structured logger of the functions. Never log an API key. */
export const logger = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? SERVICE_NAME,
});

/**
 * The middleware that puts the Lambda context in every log line (request id, cold start; keys reset per
 * invocation). Fresh per handler: the local stack runs every handler in one process.
 */
export function logContext() {
  return injectLambdaContext(logger, { resetKeys: true });
}
