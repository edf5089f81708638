import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, STATUS_CODES } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import type { Context } from 'aws-lambda';
import { trustMarkersOfNewTable } from '#adapters/dynamo/subscription-store';
import { ERROR_STATUS, errorEnvelope } from '#contracts/errors';
import { DEFAULT_INGEST_DESIGN, type IngestDesign } from '#contracts/ingest-consumer';
import { CLOCK_TICK, INGEST, REST_BASE_PATH } from '#contracts/routes';
import { AUTH_CACHE_TTL_SECONDS } from '#contracts/runtime-settings';
import { TABLE_IDS, type TableId } from '#contracts/tables';
import { HEARTBEAT, WS_BASE_PATH } from '#contracts/websocket';
import { accessPorts } from '#runtime/ports/access';
import { marketDataPorts } from '#runtime/ports/market-data';
import type { KeyAdministrationPorts } from '../lib/key-administration.ts';
import { type LocalStackState, removeOwnStateFile } from '../lib/local-stack-state.ts';
import { LOCAL_STACK_STATE_FILE } from '../lib/project.ts';
import { seedUniverse } from '../lib/universe.ts';
import { type VirtualClockSettings, virtualTime } from '../lib/virtual-clock.ts';
import { type ChangeConsumer, LocalChangeStreams, localStreamTables } from './change-streams.ts';
import { oncePerClockMinute } from './clock-minute.ts';
import { CONSOLE_PATH, demoKeyAnswer, LOCAL_DEMO_KEY_PATH, LocalConsoleSite } from './console-site.ts';
import {
  CONTROL_PREFIX,
  clockAnswer,
  handleControl,
  LOCAL_CLOCK_PATH,
  refusedControlRequest,
  routedPath,
} from './control-plane.ts';
import { LOCAL_SQS_PATH, LocalDeadLetterQueue } from './dead-letter-queue.ts';
import { ensureDemoKey } from './demo-key.ts';
import { localDocumentClient, localDynamoClient, startLocalDynamo } from './dynamo.ts';
import { type DynamoFaults, startFaultyDynamo } from './faulty-dynamo.ts';
import type { LocalHandlers } from './handlers.ts';
import { invokeLocally } from './lambda-context.ts';
import { type MarketSimulation, startMarketSimulation } from './market-simulation.ts';
import { StackMetricPoints } from './metric-points.ts';
import {
  LOCAL_METRICS_PATH,
  LocalMetrics,
  METRICS_SUMMARY_SECONDS,
  metricsAnswer,
} from './metrics-summary.ts';
import { RequestUsage } from './request-usage.ts';
import { type HttpAnswer, LocalRestGateway, renderGatewayResponse, restRoutes } from './rest-gateway.ts';
import { LocalRestLimits } from './rest-limits.ts';
import { singleFlight } from './single-flight.ts';
import { ensureTables, localTableName, localTables } from './tables.ts';
import { TokenBuckets } from './token-bucket.ts';
import { LocalTradeStream } from './trade-stream.ts';
import { LOCAL_USAGE_PATH, usageAnswer } from './usage-endpoint.ts';
import { LocalShardPositions, LocalWindowedIngest } from './windowed-ingest.ts';
import { InProcessConnections, LocalWebSocketGateway, MANAGEMENT_PATH } from './ws-gateway.ts';

export interface LocalStackOptions {
  /** The gateway's port; 0 picks a free one. */
  readonly port: number;
  readonly host?: string;
  /** DynamoDB's (dynalite's) port; 0 picks a free one. */
  readonly dynamoPort: number;
  /** Where data is kept between starts; absent: in memory. */
  readonly dataDir?: string;
  /** The service's clock starts here and runs `speed` times as fast (`--clock`, `--speed`). */
  readonly clock?: { readonly start: Date; readonly speed: number };
  readonly throttle?: { readonly rateLimit: number; readonly burstLimit: number };
  readonly authCacheTtlSeconds?: number;
  readonly logLevel?: string;
  /** The market simulator and, on first start, its history (absent: an empty market, `--no-simulator`). */
  readonly simulator?: { readonly seed: number };
  /** Where the stack reports what it does in the background (history backfill). */
  readonly log?: (line: string) => void;
  /** Real milliseconds between two clock ticks (EventBridge's every minute on AWS). */
  readonly clockTickMs?: number;
  /** Real milliseconds between two heartbeats to every WebSocket connection (every 4 minutes on AWS). */
  readonly heartbeatMs?: number;
  /** Faults injected into the handlers' DynamoDB writes (the fault-injection suite; off by default). */
  readonly dynamoFaults?: DynamoFaults;
  /**
   * What ingests the trade stream (`--ingest`): the windowed consumer, every shard's trades in windows
   * (`windows`, the default, docs/adr/0026-long-running-ingest-consumer.md), or the ingest Lambda's handler, a
   * batch per shard as deployed with `-c ingest=lambda`.
   */
  readonly ingest?: IngestDesign;
}

export interface LocalStack {
  readonly restUrl: string;
  /** The WebSocket API, on the REST port. */
  readonly wsUrl: string;
  readonly dynamoEndpoint: string;
  /** The service clock every handler of the stack reads, Unix ms. */
  nowMs(): number;
  /** DynamoDB API calls served so far. */
  dynamoRequestCount(): Promise<number>;
  /** Writes answered with an injected throttling error so far (0 without `dynamoFaults`). */
  throttledWrites(): number;
  readonly demoKey: string;
  /** Whether this start loaded the universe (the first start on its data), and how many instruments. */
  readonly seeded: boolean;
  readonly seededInstruments: number;
  readonly keyAdministration: KeyAdministrationPorts;
  /** The local trades stream feeding the ingest handler (or the windowed consumer). */
  readonly trades: LocalTradeStream;
  /**
   * Trades put and not yet ingested: the stream's queued records, and with the windowed consumer what it
   * consumer holds for its next window or has folded and not committed (records and symbols).
   */
  ingestPending(): number;
  /** The windowed consumer's position in each shard: its last record committed (none with `--ingest lambda`). */
  readonly shardPositions: ReadonlyMap<string, string>;
  /** The process's CPU while the windowed consumer's windows ran, and how many (none with `--ingest lambda`). */
  readonly windowsBusy?: { readonly cpuMicros: number; readonly windows: number };
  /** The trades dead-letter queue (records the ingest refused whole, batches it gave up on). */
  readonly deadLetterQueue: LocalDeadLetterQueue;
  /** The handlers' metrics, totalled (`GET /_local/metrics`). */
  readonly metrics: LocalMetrics;
  /** The stream tables' captured changes feeding the fan-out handler. */
  readonly changes: LocalChangeStreams;
  readonly webSocket: LocalWebSocketGateway;
  /** The folder of the usage rows' NDJSON files (the data folder, or a temporary one when in memory). */
  readonly usageRoot: string;
  /** The running simulation, when the simulator is on. */
  readonly simulation?: Promise<MarketSimulation>;
  stop(): Promise<void>;
}

/**
 * Powertools' settings, which are process-wide: its logger and metrics read them when the handler modules
 * first load, so they are set before (below). Nothing a stack's handlers reach goes through `process.env`:
 * each stack hands its handlers their ports (scripts/local/handlers.ts). The metrics reach the stack's
 * totals (scripts/local/metric-points.ts), not stdout as EMF, and tracing is off (no X-Ray here).
 */
function usePowertoolsLocally(logLevel: string | undefined): void {
  process.env.POWERTOOLS_SERVICE_NAME = 'market-data-alerts-local';
  process.env.POWERTOOLS_LOG_LEVEL = logLevel ?? process.env.POWERTOOLS_LOG_LEVEL ?? 'WARN';
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  // Tracing off: the X-Ray SDK is not even loaded (functions/runtime/tracer.ts), as its async hook tracks
  // every promise of the process, a quarter of the stack's CPU per pushed message.
  process.env.POWERTOOLS_TRACE_ENABLED = 'false';
}

/** The handlers, loaded once per process after Powertools' settings; each stack builds its own from them. */
async function handlerModules(logLevel: string | undefined) {
  usePowertoolsLocally(logLevel);
  const [handlers, { logger }] = await Promise.all([import('./handlers.ts'), import('#runtime/logger')]);
  // A later stack of the same process: the level is the process's, as its logger is.
  if (logLevel) logger.setLogLevel(logLevel as Parameters<typeof logger.setLogLevel>[0]);
  return handlers;
}

/**
 * How often the local clock tick's timer looks at the service clock: often enough that a demo at
 * `--speed 60` rolls periods within seconds of real time. The tick runs only when a new minute of the service
 * clock has begun (startSchedules), as EventBridge runs it once a minute on AWS.
 */
const DEFAULT_CLOCK_TICK_MS = 5_000;

/** How long a stop lets the trades queued and the history backfill go on before leaving them. */
const STOP_GRACE_MS = 3_000;

/** Waits for `work`, but no longer than STOP_GRACE_MS. */
async function withinGrace(work: Promise<unknown> | undefined): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    work?.catch(() => undefined),
    new Promise((resolve) => {
      timer = setTimeout(resolve, STOP_GRACE_MS);
    }),
  ]);
  clearTimeout(timer);
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

/**
 * A request Node cannot parse never reaches the gateway: Node would answer it with a bare status line. It
 * gets the error envelope instead, as API Gateway's DEFAULT_4XX response gives one: headers over Node's
 * limit (16 KB) are a 431 `request_headers_too_large`, anything else malformed a 400 `bad_request`
 * (docs/partner-guide.md#errors).
 */
function answerUnparsableRequest(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const [code, envelope] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? (['request_headers_too_large', errorEnvelope('request_headers_too_large')] as const)
      : (['bad_request', errorEnvelope('bad_request', 'malformed request')] as const);
  const status = ERROR_STATUS[code];
  const body = JSON.stringify(envelope);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Connection: close\r\n\r\n${body}`,
  );
}

/** A path of the local control plane or the console, and what answers it. */
interface LocalRoute {
  readonly matches: (path: string) => boolean;
  readonly answer: (request: IncomingMessage) => Promise<HttpAnswer> | HttpAnswer;
}

const exactly = (target: string) => (path: string) => path === target;
const under = (prefix: string) => (path: string) => path === prefix || path.startsWith(`${prefix}/`);

/** The parts a request can reach on the stack's one port. */
interface RoutedParts {
  readonly gateway: LocalRestGateway;
  readonly webSocket: LocalWebSocketGateway;
  readonly consoleSite: LocalConsoleSite;
  readonly deadLetterQueue: LocalDeadLetterQueue;
  readonly trades: LocalTradeStream;
  readonly metrics: LocalMetrics;
  readonly clock: VirtualClockSettings | undefined;
  readonly demoKey: string;
  readonly usageRoot: string;
}

/**
 * The stack's route table, first match wins: the console, the REST API (anything outside `/_local/`), then
 * the control plane's endpoints; the rest of `/_local/` is the trades stream's (control-plane.ts).
 */
function routeTable(parts: RoutedParts): readonly LocalRoute[] {
  return [
    { matches: under(CONSOLE_PATH), answer: (request) => parts.consoleSite.handle(request) },
    {
      matches: (path) => !path.startsWith(CONTROL_PREFIX),
      answer: (request) => parts.gateway.handle(request),
    },
    { matches: exactly(LOCAL_DEMO_KEY_PATH), answer: (request) => demoKeyAnswer(request, parts.demoKey) },
    {
      matches: (path) => path.startsWith(`${MANAGEMENT_PATH}/`),
      answer: (request) => parts.webSocket.handleManagement(request),
    },
    { matches: under(LOCAL_SQS_PATH), answer: (request) => parts.deadLetterQueue.handle(request) },
    { matches: exactly(LOCAL_METRICS_PATH), answer: () => metricsAnswer(parts.metrics) },
    { matches: exactly(LOCAL_CLOCK_PATH), answer: () => clockAnswer(parts.clock) },
    {
      matches: exactly(LOCAL_USAGE_PATH),
      answer: (request) => usageAnswer(parts.gateway.usage, request.url ?? '/', parts.usageRoot),
    },
    { matches: () => true, answer: (request) => handleControl(request, parts.trades) },
  ];
}

/** Answers a request from the table, after the loopback rule (one path for both: control-plane.ts routedPath). */
async function answerRequest(routes: readonly LocalRoute[], request: IncomingMessage): Promise<HttpAnswer> {
  const path = routedPath(request);
  const refused = refusedControlRequest(request, path);
  if (refused) return refused;
  const route = routes.find((candidate) => candidate.matches(path));
  if (!route) throw new Error(`no local route for ${path}`);
  return route.answer(request);
}

/**
 * The stack's timers, as EventBridge's schedules on AWS: the clock tick, the heartbeat, and the console's
 * one-line metrics summary when the handlers log at INFO or more verbose. Returns the function that stops them.
 */
function startSchedules(
  handlers: Pick<LocalHandlers, 'clockTick' | 'heartbeat'>,
  metrics: LocalMetrics,
  options: LocalStackOptions,
  nowMs: () => number,
): () => void {
  const log = options.log ?? (() => undefined);
  // One run at a time: a run slower than its period is not joined by the next ones (single-flight.ts).
  const every = (
    name: string,
    ms: number,
    run: (event: unknown, context: Context) => Promise<unknown>,
    timeoutMs?: number,
  ) =>
    setInterval(
      singleFlight(() =>
        invokeLocally(name, (context) => run({}, context), timeoutMs).catch((error: unknown) =>
          log(`${name} failed: ${error instanceof Error ? error.message : error}`),
        ),
      ),
      ms,
    );
  // Within the minute of its last run, the tick finds no period to roll and no limit to set: it would only
  // read every ledger again.
  const ticker = every(
    'clock-tick',
    options.clockTickMs ?? DEFAULT_CLOCK_TICK_MS,
    oncePerClockMinute(nowMs, handlers.clockTick),
    CLOCK_TICK.timeoutSeconds * 1000,
  );
  const heartbeats = every(
    'heartbeat',
    options.heartbeatMs ?? HEARTBEAT.intervalMinutes * 60_000,
    handlers.heartbeat,
  );
  const summaries = /^(INFO|DEBUG|TRACE)$/i.test(process.env.POWERTOOLS_LOG_LEVEL ?? '')
    ? setInterval(() => {
        const line = metrics.summaryLine(METRICS_SUMMARY_SECONDS);
        if (line) log(line);
      }, METRICS_SUMMARY_SECONDS * 1000)
    : undefined;
  return () => {
    clearInterval(ticker);
    clearInterval(heartbeats);
    clearInterval(summaries);
  };
}

/** The tables, the universe on a first start, and the demo key (kept in the data folder when there is one). */
async function prepareData(dynamoEndpoint: string, dataDir: string | undefined) {
  const created = await ensureTables(localDynamoClient(dynamoEndpoint));
  const tables = localTables(localDocumentClient(dynamoEndpoint));
  if (created.includes('subscriptions')) {
    await trustMarkersOfNewTable(localDocumentClient(dynamoEndpoint), localTableName('subscriptions'));
  }
  const catalog = marketDataPorts(tables).instrumentCatalog();
  const seeded = (await catalog.list({ limit: 1 })).length === 0;
  const seededInstruments = seeded ? (await seedUniverse(catalog)).length : 0;
  const { apiKeyStore, accountStore } = accessPorts(tables, () => AUTH_CACHE_TTL_SECONDS);
  const keyAdministration: KeyAdministrationPorts = {
    keys: apiKeyStore(),
    accounts: accountStore(),
    now: () => new Date(),
    randomBytes,
  };
  const demoKey = await ensureDemoKey(keyAdministration, dataDir && join(dataDir, 'demo-key'));
  return { catalog, seeded, seededInstruments, keyAdministration, demoKey };
}

const localTableNames = () =>
  Object.fromEntries(TABLE_IDS.map((id) => [id, localTableName(id)])) as Record<TableId, string>;

/** The stack's one port: HTTP answered from the route table, WebSocket upgrades to the WebSocket gateway. */
async function serve(
  routes: readonly LocalRoute[],
  webSocket: LocalWebSocketGateway,
  options: LocalStackOptions,
) {
  const server = createServer((request, response) => {
    answerRequest(routes, request).then(
      (answer) => response.writeHead(answer.statusCode, answer.headers).end(answer.body),
      (error: unknown) => {
        // Never a bare status line: the envelope, as API Gateway's DEFAULT_5XX gives it.
        options.log?.(`Request failed: ${error instanceof Error ? error.message : String(error)}`);
        const failed = renderGatewayResponse('DEFAULT_5XX', { statusCode: 500 });
        response.writeHead(failed.statusCode, failed.headers).end(failed.body);
      },
    );
  });
  server.on('upgrade', (request, socket, head) => webSocket.handleUpgrade(request, socket, head));
  server.on('clientError', answerUnparsableRequest);
  const host = options.host ?? '127.0.0.1';
  const port = await listen(server, options.port, host);
  const publicHost = host === '0.0.0.0' ? 'localhost' : host;
  return {
    server,
    restUrl: `http://${publicHost}:${port}${REST_BASE_PATH}`,
    wsUrl: `ws://${publicHost}:${port}${WS_BASE_PATH}`,
    /** Where the stack's own programs reach it (the handlers' `@connections` API and dead-letter queue). */
    origin: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
  };
}

/** The running stack's state file, which the tools read (scripts/lib/local-stack-state.ts). */
async function writeStateFile(
  dataDir: string,
  stack: { restUrl: string; wsUrl: string; dynamoEndpoint: string; clock: VirtualClockSettings | undefined },
): Promise<void> {
  const { clock, ...urls } = stack;
  const state: LocalStackState = {
    ...urls,
    pid: process.pid,
    ...(clock
      ? { clock: { start: clock.start.toISOString(), anchorMs: clock.anchorMs, speed: clock.speed } }
      : {}),
  };
  await writeFile(join(dataDir, LOCAL_STACK_STATE_FILE), `${JSON.stringify(state, null, 2)}\n`);
}

/**
 * Starts a local stack: its own DynamoDB, gateways, streams, timers and handlers (each built with its
 * module's `createHandler` over this stack's ports), so one process can hold several.
 */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  if (options.dataDir) await mkdir(options.dataDir, { recursive: true });
  const { loadHandlers } = await handlerModules(options.logLevel);
  // One anchor for the handlers' clock and the simulator's: both read the same service time.
  const clock = options.clock ? { ...options.clock, anchorMs: Date.now() } : undefined;
  const nowMs = clock ? () => virtualTime(clock, Date.now()).getTime() : Date.now;
  const metricPoints = new StackMetricPoints();
  const restLimits = new LocalRestLimits();
  // The fan-out is built once DynamoDB's endpoint is known: the change streams start before, so they call it late.
  let fanOut: ChangeConsumer | undefined;
  const streamTables = localStreamTables();
  const changes = new LocalChangeStreams(
    async (event) => {
      const consume = fanOut;
      if (!consume) throw new Error('a change was captured before the fan-out was loaded');
      return invokeLocally('fan-out', (context) => consume(event, context));
    },
    { tables: streamTables, nowMs },
  );
  const dynamo = await startLocalDynamo({
    port: options.dynamoPort,
    path: options.dataDir ? join(options.dataDir, 'dynamodb') : undefined,
    captureTables: streamTables.map((table) => table.name),
    onChange: (change) => changes.capture(change),
  });
  const faulty = options.dynamoFaults
    ? await startFaultyDynamo(dynamo.endpoint, options.dynamoFaults)
    : undefined;
  // The usage rows' files (Firehose and S3 on AWS): kept with the data, or for the stack's life when in memory.
  const usageRoot = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'market-data-usage-')));
  // The gateway's own origin, once it listens: the handlers' `@connections` API and dead-letter queue.
  let origin: string | undefined;
  // The gateway needs the handlers, and the ingest and fan-out post through it: it is known once made, below.
  let webSocketGateway: LocalWebSocketGateway | undefined;
  const bulkPostConnections = new InProcessConnections(() => {
    if (!webSocketGateway) throw new Error('a push was posted before the WebSocket gateway was made');
    return webSocketGateway;
  });
  const shardPositions = new LocalShardPositions();
  const handlers = loadHandlers({
    shardPositions,
    bulkPostConnections: () => bulkPostConnections,
    usageRoot,
    documents: localDocumentClient(faulty?.endpoint ?? dynamo.endpoint),
    origin: () => {
      if (!origin) throw new Error('a handler called the gateway before it listened');
      return origin;
    },
    nowMs,
    authCacheTtlSeconds: options.authCacheTtlSeconds ?? AUTH_CACHE_TTL_SECONDS,
    restLimits,
    metricPoints,
  });
  fanOut = handlers.fanOut;

  const documents = localDocumentClient(dynamo.endpoint);
  const { catalog, seeded, seededInstruments, keyAdministration, demoKey } = await prepareData(
    dynamo.endpoint,
    options.dataDir,
  );

  // Fixed limits when the options name them (tests); else the rule's, as the clock tick sets them.
  const gateway = new LocalRestGateway(
    restRoutes(handlers.rest),
    handlers.authorizer,
    new TokenBuckets(options.throttle ?? (() => restLimits.read())),
    new RequestUsage(nowMs),
  );
  const deadLetterQueue = new LocalDeadLetterQueue();
  const localMetrics = new LocalMetrics(metricPoints.observe);
  const windows =
    (options.ingest ?? DEFAULT_INGEST_DESIGN) === 'windows'
      ? new LocalWindowedIngest(
          (window) => invokeLocally('ingest-windows', (context) => handlers.ingestWindow(window, context)),
          { log: options.log },
        )
      : undefined;
  const trades = new LocalTradeStream(
    windows?.consume ??
      ((event) =>
        invokeLocally('ingest', (context) => handlers.ingest(event, context), INGEST.timeoutSeconds * 1000)),
    {
      onDeadLetter: (message) => deadLetterQueue.send(message),
      // The windowed consumer holds what the stream delivered until its next window.
      ...(windows ? { consumerFlush: () => windows.flush() } : {}),
    },
  );
  windows?.start();
  const webSocket = new LocalWebSocketGateway(handlers.webSocket, options.log);
  webSocketGateway = webSocket;
  const routes = routeTable({
    gateway,
    webSocket,
    consoleSite: new LocalConsoleSite(),
    deadLetterQueue,
    trades,
    metrics: localMetrics,
    clock,
    demoKey,
    usageRoot,
  });
  const served = await serve(routes, webSocket, options);
  const { server, restUrl, wsUrl } = served;
  origin = served.origin;

  const stopSchedules = startSchedules(handlers, localMetrics, options, nowMs);
  const stopping = new AbortController();
  const simulation = options.simulator
    ? startMarketSimulation({
        signal: stopping.signal,
        seed: options.simulator.seed,
        instruments: await catalog.list({ limit: Number.MAX_SAFE_INTEGER }),
        nowMs,
        stream: trades,
        ledgers: marketDataPorts(localTables(documents)).ledgerStore(),
        history: { documents, tableNames: localTableNames() },
        log: options.log ?? (() => undefined),
      })
    : undefined;

  if (options.dataDir) {
    await writeStateFile(options.dataDir, { restUrl, wsUrl, dynamoEndpoint: dynamo.endpoint, clock });
  }

  return {
    restUrl,
    wsUrl,
    dynamoEndpoint: dynamo.endpoint,
    nowMs,
    dynamoRequestCount: dynamo.requestCount,
    demoKey,
    seeded,
    seededInstruments,
    keyAdministration,
    trades,
    ingestPending: () => trades.queued + (windows?.pending ?? 0),
    shardPositions: shardPositions.positions,
    ...(windows ? { windowsBusy: windows.busy } : {}),
    deadLetterQueue,
    metrics: localMetrics,
    throttledWrites: () => faulty?.throttled() ?? 0,
    changes,
    webSocket,
    usageRoot,
    simulation,
    stop: async () => {
      stopSchedules();
      localMetrics.stop();
      stopping.abort();
      // Within a few seconds: the market and the history backfill stop taking work; the trades still queued
      // after STOP_GRACE_MS are left, and said so (docs/replay.md#back-pressure).
      await withinGrace((await simulation)?.stop());
      const left = await trades.stop(STOP_GRACE_MS);
      if (left > 0) options.log?.(`Stopped with ${left} queued trades not ingested.`);
      await windows?.stop();
      await webSocket.stop();
      await changes.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await faulty?.stop();
      await dynamo.stop();
      // A clean stop says so: a state file left behind means the stack did not stop (runningLocalStack). Only
      // its own: a newer stack's file stays.
      if (options.dataDir) await removeOwnStateFile(options.dataDir, { pid: process.pid, restUrl });
      else await rm(usageRoot, { recursive: true, force: true });
    },
  };
}
