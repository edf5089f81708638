import type { ErrorCode } from '#contracts/errors';
import { CLIENT_ERROR_LOG } from '#contracts/metrics';
import { logger } from './logger.ts';
import { reportMetricPoint } from './metric-points.ts';

/**
 * Counts a REST 4xx by its error code: the log line a metric filter turns into `ClientErrors` on AWS
 * (functions/contracts/metrics.ts), and the data point the local stack totals.
 */
export function countClientError(code: ErrorCode): void {
  logger.info(CLIENT_ERROR_LOG.message, { [CLIENT_ERROR_LOG.codeField]: code });
  reportMetricPoint('clientErrors', 1, code);
}
