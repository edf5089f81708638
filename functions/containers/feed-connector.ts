/**
 * PLACEHOLDER of the feed connector's process entry, so that the container image
 * (functions/containers/feed-connector.Dockerfile) and `cdk synth -c feed=...` have a file to bundle. The
 * connector itself is built separately and replaces this file: it starts from the same configuration
 * (functions/contracts/feed.ts) and runs until SIGTERM.
 *
 * This placeholder only reads and checks that configuration, names what it found (never a credential: it
 * reads no secret) and exits with status 1, so a task started from it stops at once with a clear reason
 * instead of looking healthy.
 */
import { FEED_ENV, FEED_PROVIDERS, isFeedProvider } from '#contracts/feed';
import { logger } from '#runtime/logger';

function configurationProblems(env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  if (!isFeedProvider(env[FEED_ENV.provider])) {
    problems.push(`${FEED_ENV.provider} must be one of ${FEED_PROVIDERS.join(', ')}`);
  }
  if (!env[FEED_ENV.tradesStreamName]) problems.push(`${FEED_ENV.tradesStreamName} is not set`);
  return problems;
}

const problems = configurationProblems(process.env);
logger.error('the feed connector is not part of this build (placeholder entry): exiting', {
  provider: process.env[FEED_ENV.provider],
  tradesStream: process.env[FEED_ENV.tradesStreamName],
  secretConfigured: Boolean(process.env[FEED_ENV.secretArn]),
  url: process.env[FEED_ENV.url],
  symbols: process.env[FEED_ENV.symbols],
  problems,
});
process.exitCode = 1;
