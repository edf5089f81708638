import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { INGEST_WINDOWS } from '#contracts/ingestion';
import type { REST_ROUTES, RestRoute } from '#contracts/routes';
import type { ThroughputTarget } from '#domain/access/ports';
import type { ClientConnections } from '#domain/streaming/ports';
import * as authorizer from '#handlers/auth/authorizer';
import * as ingest from '#handlers/ingest/trades';
import type { TradeWindow, WindowResult } from '#handlers/ingest/window-event';
import * as ingestWindows from '#handlers/ingest/windows';
import * as getCandles from '#handlers/rest/get-candles';
import * as getCurrentSetups from '#handlers/rest/get-current-setups';
import * as getInForceAlerts from '#handlers/rest/get-in-force-alerts';
import * as getInstrument from '#handlers/rest/get-instrument';
import * as getLatestPrices from '#handlers/rest/get-latest-prices';
import * as getMarketStatus from '#handlers/rest/get-market-status';
import * as getSimultaneousBreaks from '#handlers/rest/get-simultaneous-breaks';
import * as getState from '#handlers/rest/get-state';
import * as listInstruments from '#handlers/rest/list-instruments';
import * as clockTick from '#handlers/schedule/clock-tick';
import * as heartbeat from '#handlers/schedule/heartbeat';
import * as fanOut from '#handlers/stream/fan-out';
import * as connect from '#handlers/ws/connect';
import * as disconnect from '#handlers/ws/disconnect';
import * as message from '#handlers/ws/message';
import { memo } from '#runtime/memo';
import { accessPorts } from '#runtime/ports/access';
import { clientConnectionsAt } from '#runtime/ports/client-connections';
import { deadLetterSinkAt } from '#runtime/ports/dead-letters';
import { marketDataPorts } from '#runtime/ports/market-data';
import type { ServicePorts } from '#runtime/ports/service-ports';
import { stratPorts } from '#runtime/ports/strat';
import { streamingPorts } from '#runtime/ports/streaming';
import type { ShardCheckpoints } from '#use-cases/ingest-windows';
import type { ChangeConsumer } from './change-streams.ts';
import { LOCAL_SQS_PATH, LocalDeadLetterQueue } from './dead-letter-queue.ts';
import { LOCAL_AWS } from './dynamo.ts';
import type { StackMetricPoints } from './metric-points.ts';
import type { AuthorizerHandler, ProxyHandler } from './rest-gateway.ts';
import { localTables } from './tables.ts';
import type { StreamConsumer } from './trade-stream.ts';
import { LocalUsageFiles } from './usage-files.ts';
import { MANAGEMENT_PATH, type WebSocketHandlers, type WebSocketRouteHandler } from './ws-gateway.ts';

/** What one local stack gives its handlers, where the CDK gives a Lambda its environment. */
export interface LocalHandlerSettings {
  /** The handlers' DynamoDB (dynalite, or the fault injector in front of it). */
  readonly documents: DynamoDBDocumentClient;
  /** The gateway's loopback origin, known once it listens: the `@connections` API and the SQS queue. */
  readonly origin: () => string;
  /** The service clock (the stack's virtual one on `--clock`). */
  readonly nowMs: () => number;
  readonly authCacheTtlSeconds: number;
  /** Where the clock tick applies each key's REST limits: the local gateway's (scripts/local/rest-limits.ts). */
  readonly restLimits: ThroughputTarget;
  /** The stack's metrics: every invocation's data points reach them (and no other stack's). */
  readonly metricPoints: StackMetricPoints;
  /** Where the usage rows go: day folders of NDJSON files, as Firehose writes them to S3 (usage-files.ts). */
  readonly usageRoot: string;
  /**
   * The `@connections` of the functions that post in bulk (the ingest's quotes, the fan-out): the gateway's,
   * in-process (ws-gateway.ts `InProcessConnections`).
   */
  readonly bulkPostConnections: () => ClientConnections;
  /** Where the windowed ingest's shard positions go (scripts/local/windowed-ingest.ts). */
  readonly shardPositions: ShardCheckpoints;
}

type Schedule = (event: unknown, context: unknown) => Promise<unknown>;

export interface LocalHandlers {
  readonly rest: Readonly<Record<RestRoute['id'], ProxyHandler>>;
  readonly webSocket: WebSocketHandlers;
  readonly authorizer: AuthorizerHandler;
  readonly ingest: StreamConsumer;
  /** The windowed ingest consumer's window (unless `--ingest lambda`), in place of `ingest`. */
  readonly ingestWindow: (window: TradeWindow, context: Context) => Promise<WindowResult>;
  readonly fanOut: ChangeConsumer;
  readonly clockTick: Schedule;
  readonly heartbeat: Schedule;
}

/** The region and credentials of the stack's loopback stand-ins for AWS; they accept any. */
const LOCAL_CLIENT = {
  region: LOCAL_AWS.region,
  credentials: { accessKeyId: LOCAL_AWS.accessKeyId, secretAccessKey: LOCAL_AWS.secretAccessKey },
};

/**
 * The stack's ports: functions/runtime/ports/'s factories, as a Lambda builds them, but on this stack's
 * DynamoDB, table names, loopback endpoints, REST limits and clock. Nothing is read from `process.env`, so one
 * process can hold several stacks.
 */
function localPorts(settings: LocalHandlerSettings): ServicePorts {
  const tables = localTables(settings.documents);
  return {
    ...marketDataPorts(tables),
    ...stratPorts(tables),
    ...accessPorts(tables, () => settings.authCacheTtlSeconds),
    ...streamingPorts(tables),
    // Sockets for the windowed ingest's posts in flight, as its post workers have on AWS.
    clientConnections: clientConnectionsAt(
      () => ({ endpoint: `${settings.origin()}${MANAGEMENT_PATH}`, ...LOCAL_CLIENT }),
      INGEST_WINDOWS.postConcurrency,
    ),
    deadLetterSink: deadLetterSinkAt(() => ({
      url: LocalDeadLetterQueue.urlAt(settings.origin()),
      client: { endpoint: `${settings.origin()}${LOCAL_SQS_PATH}`, ...LOCAL_CLIENT },
    })),
    usageSink: memo(() => new LocalUsageFiles(settings.usageRoot)),
    // The clock tick applies each key's REST limits to the local gateway's (scripts/local/rest-limits.ts).
    throughputTarget: () => settings.restLimits,
    nowMs: settings.nowMs,
  };
}

/**
 * Every handler of one local stack on the stack's ports: a non-REST handler with its module's `handlerOn`, which
 * its production `handler` is too (the same wiring and `instrumented` middlewares as on AWS); a REST handler
 * with its module's `createHandler`, each dependency the port its production `handler` names (a line each,
 * checked by the compiler). Every invocation's metric points go to this stack's metrics.
 */
export function loadHandlers(settings: LocalHandlerSettings): LocalHandlers {
  const p = localPorts(settings);
  const inStack =
    <Args extends unknown[], Result>(handler: (...args: Args) => Result) =>
    (...args: Args): Result =>
      settings.metricPoints.run(() => handler(...args));
  const rest = (handler: unknown) => inStack(handler as ProxyHandler);

  const restHandlers: Record<RestRoute['id'], ProxyHandler> = {
    listInstruments: rest(listInstruments.createHandler({ instruments: p.instrumentCatalog })),
    getInstrument: rest(getInstrument.createHandler({ instruments: p.instrumentCatalog })),
    getMarketStatus: rest(getMarketStatus.createHandler({ nowMs: p.nowMs })),
    getLatestPrices: rest(getLatestPrices.createHandler({ prices: p.priceStore })),
    getCandles: rest(
      getCandles.createHandler({
        instruments: p.instrumentCatalog,
        bars: p.barStore,
        ledgers: p.ledgerStore,
        nowMs: p.nowMs,
      }),
    ),
    getState: rest(
      getState.createHandler({
        instruments: p.instrumentCatalog,
        ledgers: p.ledgerStore,
        nowMs: p.nowMs,
      }),
    ),
    getCurrentSetups: rest(getCurrentSetups.createHandler({ states: p.stateStore, setups: p.setupStore })),
    getInForceAlerts: rest(getInForceAlerts.createHandler({ alerts: p.alertFeed, nowMs: p.nowMs })),
    getSimultaneousBreaks: rest(getSimultaneousBreaks.createHandler({ breaks: p.breakFeed, nowMs: p.nowMs })),
  } satisfies Record<(typeof REST_ROUTES)[number]['id'], ProxyHandler>;

  const authorize = inStack(authorizer.handlerOn(p) as AuthorizerHandler);
  const windowHandler = inStack(
    ingestWindows.windowHandlerOn({
      ...p,
      clientConnections: settings.bulkPostConnections,
      streamsQuotes: () => true,
      checkpoints: settings.shardPositions,
      // The commit interval is real time: the stack's clock may run faster.
      wallClockMs: Date.now,
    }),
  );
  return {
    rest: restHandlers,
    authorizer: authorize,
    webSocket: {
      authorizer: authorize,
      connect: inStack(connect.handlerOn(p) as WebSocketRouteHandler),
      disconnect: inStack(disconnect.handlerOn(p) as WebSocketRouteHandler),
      // The wall clock, not the stack's: a client's message rate is real time.
      message: inStack(message.handlerOn({ ...p, nowMs: Date.now }) as WebSocketRouteHandler),
    },
    // The functions that post in bulk post in-process; the others through the SDK and loopback HTTP.
    ingest: inStack(
      ingest.handlerOn({
        ...p,
        clientConnections: settings.bulkPostConnections,
        streamsQuotes: () => true,
      }) as StreamConsumer,
    ),
    ingestWindow: windowHandler,
    fanOut: inStack(
      fanOut.handlerOn({ ...p, clientConnections: settings.bulkPostConnections }) as ChangeConsumer,
    ),
    clockTick: inStack(clockTick.handlerOn(p) as Schedule),
    heartbeat: inStack(heartbeat.handlerOn(p) as Schedule),
  };
}
