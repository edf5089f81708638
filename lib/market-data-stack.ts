import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { insecureEndpoint } from '#contracts/endpoints';
import { FEED_PROVIDERS, FEED_STACK_OUTPUTS, isFeedProvider } from '#contracts/feed';
import { type IngestDesign, ingestDesignNamed } from '#contracts/ingest-consumer';
import { STACK_OUTPUTS, tableOutputName } from '#contracts/stack-outputs';
import { TABLE_IDS } from '#contracts/tables';
import { ClockTick } from './constructs/clock-tick.ts';
import { ConsoleSite } from './constructs/console-site.ts';
import { DataTables } from './constructs/data-tables.ts';
import { EventFanOut } from './constructs/event-fan-out.ts';
import { FeedConnector } from './constructs/feed-connector.ts';
import { Heartbeat } from './constructs/heartbeat.ts';
import { INGEST_CONSUMER_STACK_OUTPUTS, IngestConsumerService } from './constructs/ingest-consumer.ts';
import { Operations } from './constructs/operations.ts';
import { PartnerRestApi } from './constructs/rest-api.ts';
import { SESSION_CAPACITY_CONTEXT } from './constructs/session-capacity.ts';
import { TradeIngestion } from './constructs/trade-ingestion.ts';
import { UsageDelivery } from './constructs/usage-delivery.ts';
import { PartnerWebSocketApi, type WebSocketCustomDomain } from './constructs/websocket-api.ts';

/**
 * `cdk deploy -c webSocket=false` leaves out the WebSocket API, the fan-out and the heartbeat: LocalStack's
 * free plan has no API Gateway V2 (`npm run deploy:local` sets it unless LOCALSTACK_WEBSOCKET=1).
 */
export const WEB_SOCKET_CONTEXT = 'webSocket';

/**
 * `cdk deploy -c console=true` adds the web console as a static site: S3 and CloudFront, with the REST API
 * under /api/* on the same distribution (docs/console.md#on-aws).
 */
export const CONSOLE_CONTEXT = 'console';

/** `cdk deploy -c alarmEmail=ops@example.com` subscribes that address to the alarm topic. */
export const ALARM_EMAIL_CONTEXT = 'alarmEmail';

/** `cdk deploy -c waf=false` leaves out the REST stage's WAF web ACL (LocalStack has no WAF). */
export const WAF_CONTEXT = 'waf';

/**
 * `cdk deploy -c enhancedFanOut=false` has the ingest poll the trades stream (a standard consumer, once a
 * second per shard) instead of reading it through its enhanced fan-out consumer: LocalStack's event source
 * mappings do not read through a consumer (localstack/localstack#10605), so `npm run deploy:local` sets it.
 */
export const ENHANCED_FAN_OUT_CONTEXT = 'enhancedFanOut';

/**
 * Who reads the trades stream: the windowed ingest consumer's Fargate service (`windows`, the default,
 * docs/adr/0026-long-running-ingest-consumer.md), or with `cdk deploy -c ingest=lambda` the ingest Lambda's
 * event source mapping, the way back (docs/operations.md). The service subscribes through the enhanced fan-out
 * consumer, so `windows` refuses `-c enhancedFanOut=false`.
 */
export const INGEST_CONTEXT = 'ingest';

/** The CDK context keys (`cdk deploy -c wsDomainName=... -c wsCertificateArn=...`) of the WebSocket domain. */
export const WS_DOMAIN_CONTEXT = {
  domainName: 'wsDomainName',
  certificateArn: 'wsCertificateArn',
} as const;

/**
 * The live feed connector's CDK context (docs/data-sources.md#on-aws): `-c feed=alpaca|polygon` adds it (it is
 * off by default); `-c feedSecretName=NAME` reads the credentials from an existing secret instead of one the
 * stack creates; `-c feedUrl=URL` points it at another endpoint of the same protocol; `-c feedTasks=0` creates
 * it with no task running (before its secret holds credentials).
 */
export const FEED_CONTEXT = {
  provider: 'feed',
  secretName: 'feedSecretName',
  url: 'feedUrl',
  tasks: 'feedTasks',
} as const;

/**
 * The Market Data Alerts service. Environment-agnostic (no account or region), so it synthesizes offline and
 * deploys to whichever account and region the CLI's credentials name, LocalStack included.
 *
 * Stateful resources (DataTables) are created first and passed by props to the stateless constructs; the
 * WebSocket API takes the REST API's authorizer function, and the fan-out and heartbeat take its stage.
 */
export class MarketDataStack extends Stack {
  readonly data: DataTables;
  /** The usage rows' delivery stream and bucket (docs/storage.md#usage-rows). */
  readonly usage: UsageDelivery;
  readonly restApi: PartnerRestApi;
  /** Absent with `-c webSocket=false`. */
  readonly webSocketApi?: PartnerWebSocketApi;
  readonly fanOut?: EventFanOut;
  readonly heartbeat?: Heartbeat;
  readonly ingestion: TradeIngestion;
  /** Present unless `-c ingest=lambda`: it reads the trades stream in place of the ingest Lambda. */
  readonly ingestConsumer?: IngestConsumerService;
  readonly clockTick: ClockTick;
  /** Present with `-c feed=alpaca|polygon`. */
  readonly feedConnector?: FeedConnector;
  readonly operations: Operations;
  /** Present with `-c console=true`. */
  readonly consoleSite?: ConsoleSite;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, {
      description: 'Market Data Alerts Partner Service: REST and WebSocket market data and Strat analytics',
      ...props,
    });

    this.data = new DataTables(this, 'Tables', {
      sessionCapacity: this.node.tryGetContext(SESSION_CAPACITY_CONTEXT) !== 'false',
    });
    this.usage = new UsageDelivery(this, 'Usage');
    this.restApi = new PartnerRestApi(this, 'RestApi', {
      tables: this.data.tables,
      waf: this.node.tryGetContext(WAF_CONTEXT) !== 'false',
    });
    if (this.node.tryGetContext(WEB_SOCKET_CONTEXT) !== 'false') {
      this.webSocketApi = new PartnerWebSocketApi(this, 'WebSocketApi', {
        tables: this.data.tables,
        authorizerFunction: this.restApi.authorizerFunction,
        customDomain: webSocketDomainFromContext(this),
      });
      this.fanOut = new EventFanOut(this, 'FanOut', {
        tables: this.data.tables,
        stage: this.webSocketApi.stage,
        usage: this.usage,
      });
      this.heartbeat = new Heartbeat(this, 'Heartbeat', {
        tables: this.data.tables,
        stage: this.webSocketApi.stage,
      });
      new CfnOutput(this, STACK_OUTPUTS.webSocketUrl, { value: this.webSocketApi.url });
      new CfnOutput(this, STACK_OUTPUTS.webSocketApiId, { value: this.webSocketApi.api.apiId });
    }
    const enhancedFanOut = this.node.tryGetContext(ENHANCED_FAN_OUT_CONTEXT) !== 'false';
    const ingest = ingestDesignFromContext(this, enhancedFanOut);
    this.ingestion = new TradeIngestion(this, 'Ingestion', {
      tables: this.data.tables,
      enhancedFanOut,
      design: ingest,
      ...(this.webSocketApi ? { quotes: { stage: this.webSocketApi.stage, usage: this.usage } } : {}),
    });
    if (ingest === 'windows') {
      this.ingestConsumer = new IngestConsumerService(this, 'IngestConsumerService', {
        ingestion: this.ingestion,
        leases: this.data.tables.consumerLeases,
      });
      const consumer = this.ingestConsumer;
      new CfnOutput(this, INGEST_CONSUMER_STACK_OUTPUTS.logGroupName, {
        value: consumer.logGroup.logGroupName,
      });
      new CfnOutput(this, INGEST_CONSUMER_STACK_OUTPUTS.clusterName, { value: consumer.cluster.clusterName });
      new CfnOutput(this, INGEST_CONSUMER_STACK_OUTPUTS.serviceName, { value: consumer.service.serviceName });
    }
    this.clockTick = new ClockTick(this, 'ClockTick', {
      tables: this.data.tables,
      usagePlan: this.restApi.usagePlan,
    });
    const provider = contextString(this, FEED_CONTEXT.provider);
    if (provider !== undefined) {
      if (!isFeedProvider(provider)) {
        throw new Error(`CDK context ${FEED_CONTEXT.provider} must be one of ${FEED_PROVIDERS.join(', ')}`);
      }
      this.feedConnector = new FeedConnector(this, 'FeedConnector', {
        provider,
        stream: this.ingestion.stream,
        positions: this.data.tables.feedPositions,
        secretName: contextString(this, FEED_CONTEXT.secretName),
        url: feedUrlFromContext(this),
        desiredCount: feedTasksFromContext(this),
      });
      const feed = this.feedConnector;
      new CfnOutput(this, FEED_STACK_OUTPUTS.secretArn, { value: feed.secretArn });
      new CfnOutput(this, FEED_STACK_OUTPUTS.logGroupName, { value: feed.logGroup.logGroupName });
      new CfnOutput(this, FEED_STACK_OUTPUTS.clusterName, { value: feed.cluster.clusterName });
      new CfnOutput(this, FEED_STACK_OUTPUTS.serviceName, { value: feed.service.serviceName });
    }
    this.operations = new Operations(this, 'Operations', {
      restApi: this.restApi,
      ingestion: this.ingestion,
      tables: this.data.tables,
      webSocketApi: this.webSocketApi,
      fanOut: this.fanOut,
      feedConnector: this.feedConnector,
      ingestConsumer: this.ingestConsumer,
      alarmEmail: contextString(this, ALARM_EMAIL_CONTEXT),
    });

    if (this.node.tryGetContext(CONSOLE_CONTEXT) === 'true') {
      this.consoleSite = new ConsoleSite(this, 'Console', {
        restApi: this.restApi.api,
        webSocketUrl: this.webSocketApi?.url,
      });
      new CfnOutput(this, STACK_OUTPUTS.consoleUrl, { value: this.consoleSite.url });
    }

    // Top-level outputs, so their keys are exactly the names in the stack-outputs contract that the key
    // CLI, the seed command and `npm run replay -- --stack` read (CDK adds no path hash to a stack's direct
    // children).
    new CfnOutput(this, STACK_OUTPUTS.restApiUrl, { value: this.restApi.baseUrl });
    new CfnOutput(this, STACK_OUTPUTS.restApiId, { value: this.restApi.api.restApiId });
    new CfnOutput(this, STACK_OUTPUTS.usagePlanId, { value: this.restApi.usagePlan.usagePlanId });
    new CfnOutput(this, STACK_OUTPUTS.tradeStreamName, { value: this.ingestion.stream.streamName });
    new CfnOutput(this, STACK_OUTPUTS.usageBucketName, { value: this.usage.bucket.bucketName });
    new CfnOutput(this, STACK_OUTPUTS.tradeDeadLetterQueueUrl, {
      value: this.ingestion.deadLetterQueue.queueUrl,
    });
    for (const tableId of TABLE_IDS) {
      new CfnOutput(this, tableOutputName(tableId), { value: this.data.tables[tableId].tableName });
    }
  }
}

/**
 * The WebSocket API's custom domain from the CDK context: both keys or neither (then partners use the
 * stage URL). One without the other is a mistake, so synthesis stops rather than silently dropping it.
 */
function webSocketDomainFromContext(scope: Construct): WebSocketCustomDomain | undefined {
  const domainName = contextString(scope, WS_DOMAIN_CONTEXT.domainName);
  const certificateArn = contextString(scope, WS_DOMAIN_CONTEXT.certificateArn);
  if (domainName === undefined && certificateArn === undefined) return undefined;
  if (domainName === undefined || certificateArn === undefined) {
    throw new Error(
      `set both ${WS_DOMAIN_CONTEXT.domainName} and ${WS_DOMAIN_CONTEXT.certificateArn} (CDK context) for ` +
        'the WebSocket custom domain, or neither',
    );
  }
  return { domainName, certificateArn };
}

/**
 * `-c ingest=windows|lambda` (default windows): anything else is a mistake, and so is `windows` without the
 * enhanced fan-out consumer the service subscribes through, so synthesis stops.
 */
function ingestDesignFromContext(scope: Construct, enhancedFanOut: boolean): IngestDesign {
  const named = contextString(scope, INGEST_CONTEXT);
  const design = ingestDesignNamed(named, `CDK context ${INGEST_CONTEXT}`);
  if (design === 'windows' && !enhancedFanOut) {
    throw new Error(
      `CDK context ${INGEST_CONTEXT}=windows${named === undefined ? ' (the default)' : ''} needs the enhanced ` +
        `fan-out consumer the service subscribes through: with ${ENHANCED_FAN_OUT_CONTEXT}=false, set ` +
        `${INGEST_CONTEXT}=lambda`,
    );
  }
  return design;
}

/** `-c feedTasks=0|1` (default 1): anything else is a mistake, so synthesis stops. */
function feedTasksFromContext(scope: Construct): 0 | 1 {
  const tasks = contextString(scope, FEED_CONTEXT.tasks) ?? '1';
  if (tasks !== '0' && tasks !== '1') throw new Error(`CDK context ${FEED_CONTEXT.tasks} must be 0 or 1`);
  return tasks === '0' ? 0 : 1;
}

/**
 * `-c feedUrl=URL`, checked as the connector checks FEED_URL at start (functions/contracts/endpoints.ts):
 * `wss://`, or `ws://` to a loopback address only, so a URL that would send the credentials in clear text
 * stops synthesis instead of the task.
 */
function feedUrlFromContext(scope: Construct): string | undefined {
  const url = contextString(scope, FEED_CONTEXT.url);
  const problem = url === undefined ? undefined : insecureEndpoint(url, 'wss:');
  if (problem !== undefined) throw new Error(`CDK context ${FEED_CONTEXT.url} ${problem}`);
  return url;
}

function contextString(scope: Construct, key: string): string | undefined {
  const value: unknown = scope.node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new Error(`CDK context ${key} must be a string`);
  return value;
}
