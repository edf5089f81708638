import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { DynamoAccountStore } from '#adapters/dynamo/account-store';
import { DynamoApiKeyStore } from '#adapters/dynamo/api-key-store';
import { DynamoInstrumentCatalog } from '#adapters/dynamo/instrument-catalog';
import { DynamoLedgerStore } from '#adapters/dynamo/ledger-store';
import { errorEnvelope } from '#contracts/errors';
import { TRADE_DEAD_LETTERS_ENV } from '#contracts/ingestion';
import { AUTHORIZER, CLOCK_TICK, INGEST, REST_BASE_PATH } from '#contracts/routes';
import { AUTH_CACHE_TTL_SECONDS } from '#contracts/runtime-settings';
import { TABLE_IDS, TABLES, type TableId } from '#contracts/tables';
import { CALLBACK_URL_ENV, FAN_OUT, HEARTBEAT, WS_BASE_PATH, WS_ROUTES } from '#contracts/websocket';
import { type VirtualClockSettings, virtualTime } from '#domain/calendar/clock';
import { PROJECT_ROOT } from '#lib/project-root';
import type { KeyAdministrationPorts } from '../lib/key-administration.ts';
import { type LocalStackState, removeOwnStateFile } from '../lib/local-stack-state.ts';
import { LOCAL_STACK_STATE_FILE } from '../lib/project.ts';
import { seedUniverse } from '../lib/universe.ts';
import { type ChangeConsumer, LocalChangeStreams, localStreamTables } from './change-streams.ts';
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
import { LOCAL_AWS, localDocumentClient, localDynamoClient, startLocalDynamo } from './dynamo.ts';
import { type DynamoFaults, startFaultyDynamo } from './faulty-dynamo.ts';
import { invokeLocally } from './lambda-context.ts';
import { type MarketSimulation, startMarketSimulation } from './market-simulation.ts';
import type { LocalMetrics } from './metrics-summary.ts';
import { RequestUsage } from './request-usage.ts';
import {
  type AuthorizerHandler,
  type HttpAnswer,
  LocalRestGateway,
  loadRestRoutes,
  renderGatewayResponse,
} from './rest-gateway.ts';
import { singleFlight } from './single-flight.ts';
import { ensureTables, localTableName } from './tables.ts';
import { TokenBuckets } from './token-bucket.ts';
import { LocalTradeStream, type StreamConsumer } from './trade-stream.ts';
import { LOCAL_USAGE_PATH, usageAnswer } from './usage-endpoint.ts';
import { LocalWebSocketGateway, MANAGEMENT_PATH, type WebSocketRouteHandler } from './ws-gateway.ts';

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
}

export interface LocalStack {
  readonly restUrl: string;
  /** The WebSocket API, on the REST port. */
  readonly wsUrl: string;
  readonly dynamoEndpoint: string;
  /** DynamoDB API calls served so far. */
  dynamoRequestCount(): Promise<number>;
  /** Writes answered with an injected throttling error so far (0 without `dynamoFaults`). */
  throttledWrites(): number;
  readonly demoKey: string;
  /** Whether this start loaded the universe (the first start on its data), and how many instruments. */
  readonly seeded: boolean;
  readonly seededInstruments: number;
  readonly keyAdministration: KeyAdministrationPorts;
  /** The local trades stream feeding the ingest handler. */
  readonly trades: LocalTradeStream;
  /** The trades dead-letter queue (records the ingest refused whole, batches it gave up on). */
  readonly deadLetterQueue: LocalDeadLetterQueue;
  /** The handlers' metrics, totalled (`GET /_local/metrics`). */
  readonly metrics: LocalMetrics;
  /** The stream tables' captured changes feeding the fan-out handler. */
  readonly changes: LocalChangeStreams;
  readonly webSocket: LocalWebSocketGateway;
  /** The running simulation, when the simulator is on. */
  readonly simulation?: Promise<MarketSimulation>;
  stop(): Promise<void>;
}

/**
 * Points the handlers at the local parts through the same environment variables the CDK sets on AWS.
 * Handlers read their environment once per process (as once per Lambda instance), so one process runs
 * one local stack.
 */
function configureHandlerEnvironment(
  options: LocalStackOptions,
  dynamoEndpoint: string,
  clock: VirtualClockSettings | undefined,
) {
  const environment: Record<string, string> = {
    AWS_REGION: LOCAL_AWS.region,
    AWS_ACCESS_KEY_ID: LOCAL_AWS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_AWS.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: dynamoEndpoint,
    POWERTOOLS_SERVICE_NAME: 'market-data-alerts-local',
    POWERTOOLS_LOG_LEVEL: options.logLevel ?? process.env.POWERTOOLS_LOG_LEVEL ?? 'WARN',
    // No CloudWatch or X-Ray here: the metrics reach the local summary (functions/runtime/metrics.ts
    // observeMetrics), not stdout as EMF, and tracing is off.
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_TRACE_ENABLED: 'false',
    AUTH_CACHE_TTL_SECONDS: String(options.authCacheTtlSeconds ?? AUTH_CACHE_TTL_SECONDS),
  };
  for (const id of TABLE_IDS) environment[TABLES[id].envVar] = localTableName(id);
  if (clock) {
    environment.MARKET_CLOCK_START = clock.start.toISOString();
    environment.MARKET_CLOCK_ANCHOR_MS = String(clock.anchorMs);
    environment.MARKET_CLOCK_SPEED = String(clock.speed);
  }
  Object.assign(process.env, environment);
}

/**
 * The local clock tick's period: short, so a demo at `--speed 60` rolls periods within seconds of real
 * time, yet not so short that reading every ledger crowds out ingestion in dynalite.
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

const importEntry = (entry: string) => import(pathToFileURL(join(PROJECT_ROOT, entry)).href);

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

/** The WebSocket routes' handlers and the authorizer, imported as Lambda would load their entries. */
async function loadWebSocketHandlers() {
  const route = async (id: (typeof WS_ROUTES)[number]['id']) => {
    const entry = WS_ROUTES.find((candidate) => candidate.id === id)?.handler ?? '';
    return (await importEntry(entry)).handler as WebSocketRouteHandler;
  };
  return {
    authorizer: (await importEntry(AUTHORIZER.handler)).handler as AuthorizerHandler,
    connect: await route('connect'),
    disconnect: await route('disconnect'),
    message: await route('message'),
  };
}

/**
 * A request Node cannot parse never reaches the gateway: Node would answer it with a bare status line. It
 * gets the error envelope instead, as API Gateway's DEFAULT_4XX response gives one: headers over Node's
 * limit (16 KB) are a 431, anything else malformed a 400.
 */
function answerUnparsableRequest(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const body = JSON.stringify(
    errorEnvelope('bad_request', tooLarge ? 'request headers too large' : 'malformed request'),
  );
  socket.end(
    `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Connection: close\r\n\r\n${body}`,
  );
}

export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  if (options.dataDir) await mkdir(options.dataDir, { recursive: true });
  // The handlers are imported only once their environment is set (below): a module reads it on first
  // load, the logger its level among it. The change streams start before, so they call the fan-out late.
  // One anchor for the handlers' clock and the simulator's: both read the same service time.
  const clock = options.clock ? { ...options.clock, anchorMs: Date.now() } : undefined;
  const nowMs = clock ? () => virtualTime(clock, Date.now()).getTime() : Date.now;
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
  configureHandlerEnvironment(options, faulty?.endpoint ?? dynamo.endpoint, clock);
  fanOut = (await importEntry(FAN_OUT.handler)).handler as ChangeConsumer;

  await ensureTables(localDynamoClient(dynamo.endpoint));
  const documents = localDocumentClient(dynamo.endpoint);
  const catalog = new DynamoInstrumentCatalog(documents, localTableName('instruments'));
  const seeded = (await catalog.list({ limit: 1 })).length === 0;
  const seededInstruments = seeded ? (await seedUniverse(catalog)).length : 0;

  const keyAdministration: KeyAdministrationPorts = {
    keys: new DynamoApiKeyStore(documents, localTableName('apiKeys')),
    accounts: new DynamoAccountStore(documents, localTableName('accounts')),
    now: () => new Date(),
    randomBytes,
  };
  const demoKey = await ensureDemoKey(
    keyAdministration,
    options.dataDir && join(options.dataDir, 'demo-key'),
  );

  // Fixed limits when the options name them (tests); else the rule's, as the clock tick sets them.
  const { localRestLimits } = await import('#runtime/ports/throughput');
  const throttle = options.throttle;
  const gateway = new LocalRestGateway(
    await loadRestRoutes(importEntry),
    (await importEntry(AUTHORIZER.handler)).handler as AuthorizerHandler,
    new TokenBuckets(throttle ?? (() => localRestLimits.current)),
    new RequestUsage(nowMs),
  );
  const ingest = (await importEntry(INGEST.handler)).handler as StreamConsumer;
  const deadLetterQueue = new LocalDeadLetterQueue();
  // Imported once the handlers' environment is set, as the handlers are: it loads their logger.
  const { LOCAL_METRICS_PATH, LocalMetrics, METRICS_SUMMARY_SECONDS, metricsAnswer } = await import(
    './metrics-summary.ts'
  );
  const localMetrics: LocalMetrics = new LocalMetrics();
  const trades = new LocalTradeStream(
    (event) => invokeLocally('ingest', (context) => ingest(event, context), INGEST.timeoutSeconds * 1000),
    {
      onDeadLetter: (message) => deadLetterQueue.send(message),
    },
  );
  const webSocket = new LocalWebSocketGateway(await loadWebSocketHandlers(), options.log);
  const consoleSite = new LocalConsoleSite();
  // One path for routing and for the loopback rule (control-plane.ts routedPath).
  const route = (request: IncomingMessage): Promise<HttpAnswer> => {
    const path = routedPath(request);
    const refused = refusedControlRequest(request, path);
    if (refused) return Promise.resolve(refused);
    if (path === CONSOLE_PATH || path.startsWith(`${CONSOLE_PATH}/`)) return consoleSite.handle(request);
    if (!path.startsWith(CONTROL_PREFIX)) return gateway.handle(request);
    if (path === LOCAL_DEMO_KEY_PATH) return Promise.resolve(demoKeyAnswer(request, demoKey));
    if (path.startsWith(`${MANAGEMENT_PATH}/`)) return webSocket.handleManagement(request);
    if (path === LOCAL_SQS_PATH || path.startsWith(`${LOCAL_SQS_PATH}/`))
      return deadLetterQueue.handle(request);
    if (path === LOCAL_METRICS_PATH) return Promise.resolve(metricsAnswer(localMetrics));
    if (path === LOCAL_CLOCK_PATH) return Promise.resolve(clockAnswer(clock));
    if (path === LOCAL_USAGE_PATH) return Promise.resolve(usageAnswer(gateway.usage, request.url ?? '/'));
    return handleControl(request, trades);
  };
  const server = createServer((request, response) => {
    route(request).then(
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
  const restUrl = `http://${publicHost}:${port}${REST_BASE_PATH}`;
  const wsUrl = `ws://${publicHost}:${port}${WS_BASE_PATH}`;
  // The functions' `@connections` endpoint, as the CDK sets the stage's callback URL on AWS.
  const loopbackOrigin = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
  process.env[CALLBACK_URL_ENV] = `${loopbackOrigin}${MANAGEMENT_PATH}`;
  // The trades dead-letter queue, as the CDK sets the ingest function's on AWS; the SQS client speaks to it
  // at the queue's own origin.
  process.env[TRADE_DEAD_LETTERS_ENV] = LocalDeadLetterQueue.urlAt(loopbackOrigin);
  process.env.AWS_ENDPOINT_URL_SQS = `${loopbackOrigin}${LOCAL_SQS_PATH}`;

  const tick = (await importEntry(CLOCK_TICK.handler)).handler as (
    event: unknown,
    context: unknown,
  ) => Promise<unknown>;
  // One tick at a time: a tick slower than the period is not joined by the next ones (single-flight.ts).
  const ticker = setInterval(
    singleFlight(() =>
      invokeLocally('clock-tick', (context) => tick({}, context), CLOCK_TICK.timeoutSeconds * 1000).catch(
        (error: unknown) =>
          options.log?.(`Clock tick failed: ${error instanceof Error ? error.message : error}`),
      ),
    ),
    options.clockTickMs ?? DEFAULT_CLOCK_TICK_MS,
  );

  // The console's one-line metrics summary, when the handlers log at INFO or more verbose.
  const summaries = /^(INFO|DEBUG|TRACE)$/i.test(process.env.POWERTOOLS_LOG_LEVEL ?? '')
    ? setInterval(() => {
        const line = localMetrics.summaryLine(METRICS_SUMMARY_SECONDS);
        if (line) options.log?.(line);
      }, METRICS_SUMMARY_SECONDS * 1000)
    : undefined;

  const heartbeat = (await importEntry(HEARTBEAT.handler)).handler as (
    event: unknown,
    context: unknown,
  ) => Promise<unknown>;
  const heartbeats = setInterval(
    () => {
      invokeLocally('heartbeat', (context) => heartbeat({}, context)).catch((error: unknown) =>
        options.log?.(`Heartbeat failed: ${error instanceof Error ? error.message : error}`),
      );
    },
    options.heartbeatMs ?? HEARTBEAT.intervalMinutes * 60_000,
  );

  const stopping = new AbortController();
  const simulation = options.simulator
    ? startMarketSimulation({
        signal: stopping.signal,
        seed: options.simulator.seed,
        instruments: await catalog.list({ limit: Number.MAX_SAFE_INTEGER }),
        nowMs,
        stream: trades,
        ledgers: new DynamoLedgerStore(documents, localTableName('ledgers')),
        history: {
          documents,
          tableNames: Object.fromEntries(TABLE_IDS.map((id) => [id, localTableName(id)])) as Record<
            TableId,
            string
          >,
        },
        log: options.log ?? (() => undefined),
      })
    : undefined;

  const stateFile = options.dataDir && join(options.dataDir, LOCAL_STACK_STATE_FILE);
  if (stateFile) {
    const state: LocalStackState = {
      restUrl,
      wsUrl,
      dynamoEndpoint: dynamo.endpoint,
      pid: process.pid,
      ...(clock
        ? { clock: { start: clock.start.toISOString(), anchorMs: clock.anchorMs, speed: clock.speed } }
        : {}),
    };
    await writeFile(stateFile, `${JSON.stringify(state, null, 2)}\n`);
  }

  return {
    restUrl,
    wsUrl,
    dynamoEndpoint: dynamo.endpoint,
    dynamoRequestCount: dynamo.requestCount,
    demoKey,
    seeded,
    seededInstruments,
    keyAdministration,
    trades,
    deadLetterQueue,
    metrics: localMetrics,
    throttledWrites: () => faulty?.throttled() ?? 0,
    changes,
    webSocket,
    simulation,
    stop: async () => {
      clearInterval(ticker);
      clearInterval(heartbeats);
      clearInterval(summaries);
      localMetrics.stop();
      stopping.abort();
      // Within a few seconds: the market and the history backfill stop taking work; the trades still queued
      // after STOP_GRACE_MS are left, and said so (docs/replay.md#back-pressure).
      await withinGrace((await simulation)?.stop());
      const left = await trades.stop(STOP_GRACE_MS);
      if (left > 0) options.log?.(`Stopped with ${left} queued trades not ingested.`);
      await webSocket.stop();
      await changes.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await faulty?.stop();
      await dynamo.stop();
      // A clean stop says so: a state file left behind means the stack did not stop (runningLocalStack). Only
      // its own: a newer stack's file stays.
      if (options.dataDir) await removeOwnStateFile(options.dataDir, { pid: process.pid, restUrl });
    },
  };
}
