import { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ApiGatewayClientConnections } from '#adapters/api-gateway/client-connections';
import { DynamoAccountStore } from '#adapters/dynamo/account-store';
import { DynamoApiKeyStore } from '#adapters/dynamo/api-key-store';
import { DynamoBarStore } from '#adapters/dynamo/bar-store';
import { DynamoConnectionStore } from '#adapters/dynamo/connection-store';
import { DynamoEventFeed } from '#adapters/dynamo/event-feed';
import { DynamoInstrumentCatalog } from '#adapters/dynamo/instrument-catalog';
import { DynamoLedgerStore } from '#adapters/dynamo/ledger-store';
import { DynamoMessageRate } from '#adapters/dynamo/message-rate';
import { DynamoPriceStore } from '#adapters/dynamo/price-store';
import { DynamoSetupStore, DynamoStateStore } from '#adapters/dynamo/strat-state-stores';
import { DynamoSubscriptionStore } from '#adapters/dynamo/subscription-store';
import { DynamoTradeLog } from '#adapters/dynamo/trade-log';
import { SqsDeadLetterSink } from '#adapters/sqs/dead-letter-sink';
import type { REST_ROUTES, RestRoute } from '#contracts/routes';
import { FAN_OUT } from '#contracts/websocket';
import type { ThroughputTarget } from '#domain/access/ports';
import {
  BREAKS_FEED,
  IN_FORCE_FEED,
  type InForceAlertBody,
  type SimultaneousBreakBody,
} from '#domain/strat/alerts';
import { MessageCounts } from '#domain/streaming/message-allowance';
import * as authorizer from '#handlers/auth/authorizer';
import * as ingest from '#handlers/ingest/trades';
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
import { cachedCredentialLookup } from '#runtime/credential-lookup';
import { instrumented } from '#runtime/lambda-handler';
import { memo } from '#runtime/memo';
import { cachedUniverse } from '#runtime/universe';
import type { CommittedWrites } from '#use-cases/ingest-trades';
import type { ChangeConsumer } from './change-streams.ts';
import { LOCAL_SQS_PATH, LocalDeadLetterQueue } from './dead-letter-queue.ts';
import { LOCAL_AWS } from './dynamo.ts';
import type { StackMetricPoints } from './metric-points.ts';
import type { AuthorizerHandler, ProxyHandler } from './rest-gateway.ts';
import { localTableName } from './tables.ts';
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
  /** Where the usage rows' files go (scripts/local/usage-files.ts), in place of the Firehose stream. */
  readonly usageRoot: string;
}

type Schedule = (event: unknown, context: unknown) => Promise<unknown>;

export interface LocalHandlers {
  readonly rest: Readonly<Record<RestRoute['id'], ProxyHandler>>;
  readonly webSocket: WebSocketHandlers;
  readonly authorizer: AuthorizerHandler;
  readonly ingest: StreamConsumer;
  readonly fanOut: ChangeConsumer;
  readonly clockTick: Schedule;
  readonly heartbeat: Schedule;
}

const localCredentials = {
  accessKeyId: LOCAL_AWS.accessKeyId,
  secretAccessKey: LOCAL_AWS.secretAccessKey,
};

/**
 * The stack's ports, as functions/runtime/ports/ makes them on AWS (one adapter per capability, made on first
 * use), but on this stack's DynamoDB, tables, clock and loopback endpoints: nothing is read from
 * `process.env`, so one process can hold several stacks.
 */
function localPorts(settings: LocalHandlerSettings) {
  const { documents } = settings;
  const table = localTableName;
  const instrumentCatalog = memo(() => new DynamoInstrumentCatalog(documents, table('instruments')));
  const apiKeyStore = memo(() => new DynamoApiKeyStore(documents, table('apiKeys')));
  const accountStore = memo(() => new DynamoAccountStore(documents, table('accounts')));
  const eventFeed = <Body>(
    feed: 'alerts' | 'breaks',
    definition: ConstructorParameters<typeof DynamoEventFeed>[2],
  ) => new DynamoEventFeed<Body>(documents, { feed: table(feed), guards: table('eventGuards') }, definition);
  return {
    instrumentCatalog,
    priceStore: memo(() => new DynamoPriceStore(documents, table('prices'))),
    barStore: memo(() => new DynamoBarStore(documents, table('bars'))),
    ledgerStore: memo(() => new DynamoLedgerStore<CommittedWrites>(documents, table('ledgers'))),
    tradeLog: memo(() => new DynamoTradeLog(documents, table('tradeLog'))),
    universe: cachedUniverse(instrumentCatalog, 5 * 60_000),
    stateStore: memo(() => new DynamoStateStore(documents, table('states'))),
    setupStore: memo(() => new DynamoSetupStore(documents, table('setups'))),
    alertFeed: memo(() => eventFeed<InForceAlertBody>('alerts', IN_FORCE_FEED)),
    breakFeed: memo(() => eventFeed<SimultaneousBreakBody>('breaks', BREAKS_FEED)),
    apiKeyStore,
    accountStore,
    credentialLookup: memo(() =>
      cachedCredentialLookup({ keys: apiKeyStore(), accounts: accountStore() }, settings.authCacheTtlSeconds),
    ),
    connectionStore: memo(() => new DynamoConnectionStore(documents, table('connections'))),
    subscriptionStore: memo(() => new DynamoSubscriptionStore(documents, table('subscriptions'))),
    usageSink: memo(() => new LocalUsageFiles(settings.usageRoot)),
    messageRate: memo(() => new DynamoMessageRate(documents, table('subscriptions'))),
    clientConnections: memo(
      () =>
        new ApiGatewayClientConnections(
          new ApiGatewayManagementApiClient({
            endpoint: `${settings.origin()}${MANAGEMENT_PATH}`,
            region: LOCAL_AWS.region,
            credentials: localCredentials,
          }),
        ),
    ),
    deadLetterSink: memo(
      () =>
        new SqsDeadLetterSink(
          new SQSClient({
            endpoint: `${settings.origin()}${LOCAL_SQS_PATH}`,
            region: LOCAL_AWS.region,
            credentials: localCredentials,
          }),
          LocalDeadLetterQueue.urlAt(settings.origin()),
        ),
    ),
  };
}

/**
 * Every handler of one local stack, built with its module's `createHandler` over the stack's ports: the wiring
 * of each module's production `handler`, line for line, with local ports in place of
 * functions/runtime/ports/. The non-REST handlers get the same `instrumented` middlewares as on AWS; every
 * invocation's metric points go to this stack's metrics.
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
    getMarketStatus: rest(getMarketStatus.createHandler({ nowMs: settings.nowMs })),
    getLatestPrices: rest(getLatestPrices.createHandler({ prices: p.priceStore })),
    getCandles: rest(
      getCandles.createHandler({
        instruments: p.instrumentCatalog,
        bars: p.barStore,
        ledgers: p.ledgerStore,
        nowMs: settings.nowMs,
      }),
    ),
    getState: rest(
      getState.createHandler({
        instruments: p.instrumentCatalog,
        ledgers: p.ledgerStore,
        nowMs: settings.nowMs,
      }),
    ),
    getCurrentSetups: rest(getCurrentSetups.createHandler({ states: p.stateStore, setups: p.setupStore })),
    getInForceAlerts: rest(getInForceAlerts.createHandler({ alerts: p.alertFeed, nowMs: settings.nowMs })),
    getSimultaneousBreaks: rest(
      getSimultaneousBreaks.createHandler({ breaks: p.breakFeed, nowMs: settings.nowMs }),
    ),
  } satisfies Record<(typeof REST_ROUTES)[number]['id'], ProxyHandler>;

  const authorize = inStack(
    instrumented(authorizer.createHandler({ credentials: p.credentialLookup })) as AuthorizerHandler,
  );
  return {
    rest: restHandlers,
    authorizer: authorize,
    webSocket: {
      authorizer: authorize,
      connect: inStack(
        instrumented(
          connect.createHandler({
            ports: () => ({ connections: p.connectionStore(), clients: p.clientConnections() }),
          }),
        ) as WebSocketRouteHandler,
      ),
      disconnect: inStack(
        instrumented(
          disconnect.createHandler({
            ports: () => ({ connections: p.connectionStore(), subscriptions: p.subscriptionStore() }),
          }),
        ) as WebSocketRouteHandler,
      ),
      message: inStack(messageHandler(p)),
    },
    ingest: inStack(
      instrumented(
        ingest.createHandler({
          ports: async () => {
            const instruments = await p.universe();
            return {
              ledgers: p.ledgerStore(),
              bars: p.barStore(),
              prices: p.priceStore(),
              tradeLog: p.tradeLog(),
              alerts: p.alertFeed(),
              breaks: p.breakFeed(),
              states: p.stateStore(),
              setups: p.setupStore(),
              sectorOf: (symbol: string) => instruments.get(symbol)?.sector ?? '',
              nowMs: settings.nowMs,
            };
          },
          deadLetters: p.deadLetterSink,
        }),
      ) as StreamConsumer,
    ),
    fanOut: inStack(
      instrumented(
        fanOut.createHandler({
          ports: () => ({
            subscriptions: p.subscriptionStore(),
            connections: p.connectionStore(),
            clients: p.clientConnections(),
            usage: p.usageSink(),
            nowMs: settings.nowMs,
            credentials: p.credentialLookup(),
          }),
          universe: p.universe,
          prices: p.priceStore,
          sources: memo(() => new Map(FAN_OUT.sources.map((source) => [localTableName(source), source]))),
          nowMs: settings.nowMs,
        }),
      ) as ChangeConsumer,
    ),
    clockTick: inStack(
      instrumented(
        clockTick.createHandler({
          universe: p.universe,
          ledgers: p.ledgerStore,
          stateSync: () => ({ states: p.stateStore(), setups: p.setupStore() }),
          nowMs: settings.nowMs,
          throughput: () => ({ breaks: p.breakFeed(), target: settings.restLimits }),
        }),
      ) as Schedule,
    ),
    heartbeat: inStack(
      instrumented(
        heartbeat.createHandler({
          ports: () => ({
            connections: p.connectionStore(),
            subscriptions: p.subscriptionStore(),
            clients: p.clientConnections(),
          }),
          // No cache, as on AWS: a revocation shows at the next heartbeat.
          credentials: memo(() =>
            cachedCredentialLookup({ keys: p.apiKeyStore(), accounts: p.accountStore() }, 0),
          ),
        }),
      ) as Schedule,
    ),
  };
}

/** `$default`, with this stack's own count of each connection's messages (an instance's, on AWS). */
function messageHandler(p: ReturnType<typeof localPorts>): WebSocketRouteHandler {
  const messageCounts = new MessageCounts();
  return instrumented(
    message.createHandler({
      ports: () => ({
        connections: p.connectionStore(),
        subscriptions: p.subscriptionStore(),
        clients: p.clientConnections(),
        trackedSymbols: p.universe,
        messageRate: p.messageRate(),
        messageCounts,
        // The wall clock, not the stack's: a client's message rate is real time.
        nowMs: Date.now,
      }),
      credentials: p.credentialLookup,
    }),
  ) as WebSocketRouteHandler;
}
