/**
 * `npm run feed -- --provider alpaca|polygon [--url URL] [--symbols A,B] [--stack NAME]`: feeds a provider's
 * live trades to the running local stack (found as `npm run replay` finds it) or to a deployed stack's trades
 * stream, until Ctrl-C (docs/data-sources.md#locally). Prints a status line every 30 s. Keeps each feed's
 * position in the stack's feed-positions table and, started again, fills what it missed since. Feeding a local
 * stack that runs on a virtual clock (`npm start -- --clock T --speed N`), it runs on that service clock too.
 *
 *   --provider P     alpaca (APCA_API_KEY_ID, APCA_API_SECRET_KEY) or polygon (POLYGON_API_KEY), from the environment
 *   --url URL        another endpoint of the same protocol: Alpaca's stream URL (`.../v2/sip`), Polygon's cluster root
 *   --symbols A,B    default: the universe (data/universe.csv)
 *   --stack NAME     put on the deployed stack's Kinesis trades stream instead [--region R]
 *   --local-url U    a local stack's origin (default: the running one's, from .data/local-stack.json)
 *   --endpoint U     the local stack's DynamoDB, where each feed's position is kept (default: the running one's)
 *   --rest-url U     the provider's REST origin for gap fills (default: the provider's)
 *   -h, --help       this text
 *
 * `--url` must be wss:// and `--rest-url` https://, except to a loopback address (a local fake): the
 * credentials never travel in clear text (docs/data-sources.md#endpoints-and-credentials).
 */
import { parseArgs } from 'node:util';
import { FeedService } from '#containers/feed-connector/service';
import {
  FeedSettingsError,
  feedCredentials,
  feedSymbols,
  secureEndpoint,
} from '#containers/feed-connector/settings';
import { FEED_PROVIDERS, type FeedProvider } from '#contracts/feed';
import type { FeedLog } from '#domain/feed/ports';
import { answerHelp, exitWith, UsageError } from './lib/cli.ts';
import { statusLine } from './lib/feed-status.ts';
import { localServiceClock } from './lib/local-clock.ts';
import { DEFAULT_DATA_DIR } from './lib/project.ts';
import { feedPositionsFor, localOrigin, tradeSinkFor } from './lib/trade-sinks.ts';

answerHelp(import.meta.url);

const STATUS_EVERY_MS = 30_000;

/** Warnings and errors on stderr as one line each; the credentials never reach a log field. */
const consoleLog: FeedLog = {
  info: (message, fields) =>
    process.stdout.write(`${message}${fields ? ` ${JSON.stringify(fields)}` : ''}\n`),
  warn: (message, fields) =>
    process.stderr.write(`${message}${fields ? ` ${JSON.stringify(fields)}` : ''}\n`),
  error: (message, fields) =>
    process.stderr.write(`${message}${fields ? ` ${JSON.stringify(fields)}` : ''}\n`),
};

try {
  const { values } = parseArgs({
    options: {
      provider: { type: 'string' },
      url: { type: 'string' },
      symbols: { type: 'string' },
      stack: { type: 'string' },
      region: { type: 'string' },
      'local-url': { type: 'string' },
      'rest-url': { type: 'string' },
      endpoint: { type: 'string' },
      'data-dir': { type: 'string', default: DEFAULT_DATA_DIR },
    },
  });
  const provider = values.provider as FeedProvider | undefined;
  if (provider === undefined || !FEED_PROVIDERS.includes(provider)) {
    throw new UsageError(`--provider must be one of ${FEED_PROVIDERS.join(', ')}`);
  }
  const credentials = await feedCredentials(provider, undefined).catch((error: unknown) => {
    throw error instanceof FeedSettingsError ? new UsageError(error.message) : error;
  });
  const positions = await feedPositionsFor({
    stack: values.stack,
    region: values.region,
    endpoint: values.endpoint,
    url: values['local-url'],
    dataDir: values['data-dir'],
  });
  if (positions === undefined) {
    consoleLog.warn(
      'No local DynamoDB found (--endpoint): the position is not kept; a restart fills nothing',
    );
  }
  // Feeding a local stack on a virtual clock (`npm start -- --clock ...`): the connector's sessions, windows and
  // restart fill run on that service time too, or every session check would read the wall clock.
  const serviceClock = values.stack
    ? undefined
    : await localServiceClock(await localOrigin(values['local-url'], values['data-dir']));
  if (serviceClock !== undefined) {
    consoleLog.info("On the local stack's service clock", { now: new Date(serviceClock()).toISOString() });
  }
  const service = new FeedService({
    provider,
    ...(serviceClock ? { nowMs: serviceClock } : {}),
    credentials,
    ...(values.url ? { url: secureEndpoint('--url', values.url, 'wss:') } : {}),
    ...(values['rest-url'] ? { restUrl: secureEndpoint('--rest-url', values['rest-url'], 'https:') } : {}),
    symbols: feedSymbols(values.symbols),
    sink: await tradeSinkFor({
      stack: values.stack,
      region: values.region,
      url: values['local-url'],
      dataDir: values['data-dir'],
    }),
    log: consoleLog,
    emitMetrics: false,
    ...(positions ? { positions } : {}),
  });
  let previousPut = 0;
  let previousAt = Date.now();
  const timer = setInterval(() => {
    const status = service.status();
    process.stdout.write(`${statusLine(status, previousPut, (Date.now() - previousAt) / 1_000)}\n`);
    previousPut = status.totals.put;
    previousAt = Date.now();
  }, STATUS_EVERY_MS);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      process.stdout.write('Stopping: putting what is held\n');
      service.stop();
    });
  }
  try {
    await service.run();
  } finally {
    clearInterval(timer);
  }
  process.stdout.write(`${statusLine(service.status(), previousPut, (Date.now() - previousAt) / 1_000)}\n`);
} catch (error) {
  exitWith('feed', error instanceof FeedSettingsError ? new UsageError(error.message) : error);
}
