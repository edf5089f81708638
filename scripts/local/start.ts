/**
 * `npm start [-- options]`: the whole service on this machine, no Docker, no AWS
 * (docs/architecture.md#local-stack-the-same-code-on-embedded-parts).
 *
 *   --port N          the gateway's port (default: $PORT or 3000)
 *   --host H          the address to listen on (default 127.0.0.1)
 *   --dynamo-port N   the local DynamoDB's port (default 8000)
 *   --data-dir D      where data is kept between starts (default .data/)
 *   --in-memory       keep nothing between starts
 *   --clock ISO       run the service's clock from this instant, e.g. 2024-11-29T15:00:00Z
 *   --speed N         with --clock: the clock runs N times as fast (default 1)
 *   --log-level L     the handlers' log level (default WARN)
 *   --no-simulator    an empty market: no synthetic trades and no synthetic history (replays, tests)
 *   --seed N          the simulator's seed (default 1)
 *   --fresh           delete the data folder first
 *   --ingest M        what ingests the trades: windows (the windowed consumer, as deployed; default,
 *                     docs/adr/0026-long-running-ingest-consumer.md) or lambda (the ingest Lambda's handler)
 */
import { rm } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { type IngestDesign, ingestDesignNamed } from '#contracts/ingest-consumer';
import { previousSession, sessionAt, sessionOn } from '#domain/calendar/sessions';
import { formatNewYorkIso, newYorkDate } from '#domain/calendar/time-zone';
import { answerHelp } from '../lib/cli.ts';
import { isProcessAlive, localStackStateFile } from '../lib/local-stack-state.ts';
import { DEFAULT_DATA_DIR } from '../lib/project.ts';
import { type LocalStack, startLocalStack } from './stack.ts';
import { onStopSignals } from './stop-signals.ts';

answerHelp(import.meta.url);

function fail(message: string): never {
  process.stderr.write(`npm start: ${message}\n`);
  process.exit(2);
}

function parseOptions() {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: process.env.PORT ?? '3000' },
      host: { type: 'string', default: '127.0.0.1' },
      'dynamo-port': { type: 'string', default: '8000' },
      'data-dir': { type: 'string', default: DEFAULT_DATA_DIR },
      'in-memory': { type: 'boolean', default: false },
      clock: { type: 'string' },
      speed: { type: 'string', default: '1' },
      'log-level': { type: 'string' },
      'no-simulator': { type: 'boolean', default: false },
      seed: { type: 'string', default: '1' },
      fresh: { type: 'boolean', default: false },
      ingest: { type: 'string' },
    },
  });
  let ingest: IngestDesign;
  try {
    ingest = ingestDesignNamed(values.ingest, `--ingest ${values.ingest}`);
  } catch (error) {
    fail((error as Error).message);
  }
  const seed = Number(values.seed);
  if (!Number.isSafeInteger(seed)) fail(`--seed ${values.seed} must be a whole number`);
  const port = Number(values.port);
  const dynamoPort = Number(values['dynamo-port']);
  const speed = Number(values.speed);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port ${values.port} is not a port number`);
  if (!Number.isInteger(dynamoPort) || dynamoPort < 0 || dynamoPort > 65535) {
    fail(`--dynamo-port ${values['dynamo-port']} is not a port number`);
  }
  if (!(speed > 0)) fail(`--speed ${values.speed} must be a positive number`);
  const start = values.clock === undefined ? undefined : new Date(values.clock);
  if (start && Number.isNaN(start.getTime())) fail(`--clock ${values.clock} is not an ISO 8601 instant`);
  return {
    port,
    host: values.host,
    dynamoPort,
    dataDir: values['in-memory'] ? undefined : values['data-dir'],
    clock: start ? { start, speed } : undefined,
    logLevel: values['log-level'],
    simulator: values['no-simulator'] ? undefined : { seed },
    fresh: values.fresh,
    ingest,
    log: (line: string) => process.stdout.write(`${line}\n`),
  };
}

function banner(stack: LocalStack, options: ReturnType<typeof parseOptions>): string {
  const key = stack.demoKey;
  const clock = options.clock
    ? `${options.clock.start.toISOString()} at ${options.clock.speed}x`
    : 'the system clock';
  return [
    '',
    'Market Data Alerts Partner Service: local stack',
    `  Simulator  ${options.simulator ? `on (seed ${options.simulator.seed})` : 'off: an empty market (--no-simulator)'}`,
    ...(stack.seeded ? [`  Seeded ${stack.seededInstruments} instruments from data/universe.csv`] : []),
    `  REST       ${stack.restUrl}`,
    `  WebSocket  ${stack.wsUrl}`,
    `  Console    ${new URL('/console/', stack.restUrl).href} (docs/console.md)`,
    `  DynamoDB   ${stack.dynamoEndpoint} (${options.dataDir ? `data in ${options.dataDir}` : 'in memory'})`,
    `  Clock      ${clock}`,
    `  Ingest     ${options.ingest === 'lambda' ? 'the ingest Lambda, a batch per shard (--ingest lambda)' : 'the windowed consumer'}`,
    `  Demo key   ${key}`,
    '             (account "demo", every scope; more keys: npm run keys -- create --account A --scopes ... --label L)',
    '',
    'Try:',
    `  curl -s -H 'X-API-Key: ${key}' '${stack.restUrl}/market-status'`,
    `  curl -s -H 'Authorization: Bearer ${key}' '${stack.restUrl}/instruments?search=aa&limit=5'`,
    `  curl -s -H 'X-API-Key: ${key}' '${stack.restUrl}/instruments/ES1%21'`,
    `  curl -s -H 'X-API-Key: ${key}' '${stack.restUrl}/prices/latest?symbols=ES1!,SPY,AAPL'`,
    `  curl -s -H 'X-API-Key: ${key}' '${stack.restUrl}/candles/SPY?interval=15m&limit=5'`,
    `  curl -s '${stack.restUrl}/instruments'     # no key: 401 missing_api_key`,
    '',
    'Stream quotes, states and alerts (docs/websocket.md):',
    `  node docs/examples/stream-client.mjs --url ${stack.wsUrl} --key ${key} --symbols ES1!,SPY,AAPL`,
    ...marketHint(options),
    '',
    'Ctrl-C stops it (a second Ctrl-C at once).',
    '',
  ].join('\n');
}

/** When the service clock is outside a session, how to watch one now. */
function marketHint(options: ReturnType<typeof parseOptions>): string[] {
  const now = options.clock?.start ?? new Date();
  if (!options.simulator || sessionAt(now)) return [];
  const last = previousSession(newYorkDate(now)) ?? sessionOn(newYorkDate(now));
  const watch = last ? new Date(last.open.getTime() + 30 * 60_000).toISOString().replace('.000Z', 'Z') : '';
  return [
    '',
    `The market is closed at ${formatNewYorkIso(now)}: prices and candles move only during sessions.`,
    ...(watch ? [`To watch a session now: npm start -- --fresh --clock ${watch} --speed 60`] : []),
  ];
}

const options = parseOptions();
if (options.dataDir) {
  // The data folder's state file names the stack that uses it. A live one must not be started twice (nor its
  // data deleted by --fresh); a dead one crashed or was killed, and its data is taken over.
  const previous = await localStackStateFile(options.dataDir);
  if (previous && isProcessAlive(previous.pid)) {
    fail(`a local stack (pid ${previous.pid}) is already running on ${options.dataDir}: ${previous.restUrl}`);
  }
  if (previous) {
    options.log(`A local stack (pid ${previous.pid}) did not stop cleanly; starting again on its data.`);
  }
}
if (options.fresh && options.dataDir) await rm(options.dataDir, { recursive: true, force: true });
let stack: LocalStack;
try {
  stack = await startLocalStack(options);
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  fail(
    message.includes('EADDRINUSE')
      ? `${message}: another process uses the port (is a local stack already running? try --port / --dynamo-port)`
      : message,
  );
}
process.stdout.write(banner(stack, options));

onStopSignals(process, {
  stop: () => stack.stop(),
  exit: (code) => process.exit(code),
  log: (line) => process.stdout.write(`${line}\n`),
});
