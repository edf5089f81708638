import { Logger } from '@aws-lambda-powertools/logger';
import { SERVICE_NAME } from '#contracts/runtime-settings';

/** The one structured logger of the functions. Never log an API key. */
export const logger = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? SERVICE_NAME,
});
