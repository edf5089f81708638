import { Logger } from '@aws-lambda-powertools/logger';

/** The one structured logger of the functions. Never log an API key. */
export const logger = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'market-data-alerts',
});
