import { Aspects, Duration, type IAspect, Stack } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  Stats,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Operation } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { FilterPattern, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct, type IConstruct } from 'constructs';
import { METRICS, METRICS_NAMESPACE, type MetricId } from '#contracts/metrics';
import { SERVICE_NAME } from '#contracts/runtime-settings';
import { TABLE_IDS } from '#contracts/tables';
import type { EventFanOut } from './event-fan-out.ts';
import type { FeedConnector } from './feed-connector.ts';
import type { IngestConsumerService } from './ingest-consumer.ts';
import type { PartnerRestApi } from './rest-api.ts';
import { ServiceFunction, type TableConstructs } from './service-function.ts';
import type { TradeIngestion } from './trade-ingestion.ts';
import type { PartnerWebSocketApi } from './websocket-api.ts';

/** The thresholds of the alarms this construct adds, and why (docs/operations.md#alarms). */
export const ALARM_THRESHOLDS = {
  /** Any function error or throttle in 5 minutes: each is a request or batch that failed. */
  lambdaErrors: 1,
  lambdaThrottles: 1,
  /** REST 5xx answers in 5 minutes: the service's own failures (4xx are the callers'). */
  rest5xx: 5,
  /** The oldest trade of a batch older than this at commit, 3 minutes running: quotes and candles are late. */
  ingestLagMs: 60_000,
  /** Failed pushes in 5 minutes (a run of them means a partner misses messages). */
  pushFailures: 10,
  /** Throttled DynamoDB requests of a table in 5 minutes (on-demand tables throttle only at a hot key). */
  dynamoThrottles: 1,
  /** Minutes of an open market with no trade applied: the feed is silent. */
  feedSilenceMinutes: 5,
  /**
   * Displacements of the feed connector in 5 minutes: any one means another connection uses the feed's key
   * (a second connector, a developer's `npm run feed` on the production key). The connector stops after 5
   * in 10 minutes (docs/data-sources.md#two-connectors-on-one-key).
   */
  feedDisplacements: 1,
  /**
   * The windowed ingest consumer's reading of its furthest-behind shard trailing the stream by more than this,
   * 3 minutes running (as the ingest Lambda's iterator age): quotes and candles are late.
   */
  consumerBehindMs: 60_000,
  /** Minutes with no ConsumerBehind point at all: no task holds the lease and reads the shards. */
  consumerSilentMinutes: 5,
} as const;

/** The throttled-requests metric, filtered from the REST stage's access log. */
export const THROTTLED_METRIC = 'ThrottledRequests';

export interface OperationsProps {
  readonly restApi: PartnerRestApi;
  readonly ingestion: TradeIngestion;
  readonly tables: TableConstructs;
  readonly webSocketApi?: PartnerWebSocketApi;
  readonly fanOut?: EventFanOut;
  /** The live feed connector, with `-c feed=...`: its dashboard row and its silence alarm. */
  readonly feedConnector?: FeedConnector;
  /** The windowed ingest consumer (unless `-c ingest=lambda`): its dashboard row and its alarms. */
  readonly ingestConsumer?: IngestConsumerService;
  /** Who the alarms page: an email address subscribed to the topic (`cdk deploy -c alarmEmail=...`). */
  readonly alarmEmail?: string;
}

/** One of the service's own metrics (functions/contracts/metrics.ts), as the functions emit it. */
export function serviceMetric(
  id: MetricId,
  options: { statistic?: string; period?: Duration; dimensionValue?: string } = {},
): Metric {
  const definition = METRICS[id];
  const service = 'service' in definition ? definition.service : SERVICE_NAME;
  const dimensionsMap: Record<string, string> = { service };
  if ('dimension' in definition && options.dimensionValue !== undefined) {
    dimensionsMap[definition.dimension] = options.dimensionValue;
  }
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName: definition.name,
    dimensionsMap,
    statistic: options.statistic ?? Stats.SUM,
    period: options.period ?? Duration.minutes(1),
  });
}

/** Every alarm of the stack pages the topic: the aspect adds the action wherever an alarm was made. */
class AlarmsPage implements IAspect {
  constructor(private readonly action: SnsAction) {}

  visit(node: IConstruct): void {
    if (node instanceof Alarm) node.addAlarmAction(this.action);
  }
}

/**
 * What an operator sees and is paged by (docs/operations.md): the alarm topic (email when
 * `-c alarmEmail=...`), an action on every alarm of the stack, the alarms on the functions, the REST stage,
 * ingestion, the fan-out, the tables and the feed's silence, and one dashboard.
 */
export class Operations extends Construct {
  readonly topic: Topic;
  readonly dashboard: Dashboard;
  readonly feedSilenceAlarm: Alarm;
  /** With the feed connector: the market is open and the connector received no trade. */
  readonly feedConnectorSilenceAlarm?: Alarm;
  /** With the feed connector: another connection on the feed's key displaced it. */
  readonly feedDisplacedAlarm?: Alarm;
  /** With the ingest consumer: its reading trails the stream by over a minute. */
  readonly consumerBehindAlarm?: Alarm;
  /** With the ingest consumer: no task reports its reading, so none is reading. */
  readonly consumerSilentAlarm?: Alarm;

  constructor(scope: Construct, id: string, props: OperationsProps) {
    super(scope, id);

    // A key of our own: CloudWatch alarms cannot publish to a topic under the AWS-managed aws/sns key.
    const key = new Key(this, 'AlarmTopicKey', {
      enableKeyRotation: true,
      description: 'Encrypts the alarm topic; CloudWatch may use it to publish',
    });
    key.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
      }),
    );
    this.topic = new Topic(this, 'AlarmTopic', { masterKey: key, enforceSSL: true });
    if (props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
    Aspects.of(Stack.of(this)).add(new AlarmsPage(new SnsAction(this.topic)));

    const functions = Stack.of(this)
      .node.findAll()
      .filter((node): node is ServiceFunction => node instanceof ServiceFunction);
    for (const fn of functions) this.functionAlarms(fn, props);

    this.alarm('Rest5xxAlarm', props.restApi.api.metricServerError({ period: Duration.minutes(5) }), {
      threshold: ALARM_THRESHOLDS.rest5xx,
      description:
        'The REST API answered 5xx: the service failed partners (see the functions alarms and logs).',
    });
    this.alarm('IngestLagAlarm', serviceMetric('ingestLag', { statistic: Stats.MAXIMUM }), {
      threshold: ALARM_THRESHOLDS.ingestLagMs,
      evaluationPeriods: 3,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
      description:
        'Trades reach candles and quotes more than a minute after their time, 3 minutes running: the feed ' +
        'delivers late or ingestion cannot keep up (see the iterator age).',
    });
    if (props.fanOut) {
      this.alarm('PushFailuresAlarm', serviceMetric('pushesFailed', { period: Duration.minutes(5) }), {
        threshold: ALARM_THRESHOLDS.pushFailures,
        description:
          'WebSocket pushes fail: partners miss messages. States and alerts are delivered again by their ' +
          'streams; a quote is not (the next quote replaces it, and /prices/latest has it).',
      });
    }
    for (const tableId of TABLE_IDS) {
      this.alarm(`${tableId}ThrottlesAlarm`, tableThrottles(tableId, props.tables, Duration.minutes(5)), {
        threshold: ALARM_THRESHOLDS.dynamoThrottles,
        description: `DynamoDB throttles requests to the ${tableId} table: a hot key or a partition limit.`,
      });
    }
    this.feedSilenceAlarm = this.alarm('FeedSilenceAlarm', feedSilence(), {
      threshold: 1,
      evaluationPeriods: ALARM_THRESHOLDS.feedSilenceMinutes,
      description:
        `The market is open and no trade was applied for ${ALARM_THRESHOLDS.feedSilenceMinutes} minutes: ` +
        'the feed is silent (provider, connector or stream). Partners see frozen quotes.',
    });
    if (props.feedConnector) {
      this.feedConnectorSilenceAlarm = this.alarm('FeedConnectorSilenceAlarm', feedConnectorSilence(), {
        threshold: 1,
        evaluationPeriods: ALARM_THRESHOLDS.feedSilenceMinutes,
        description:
          `The market is open and the ${props.feedConnector.provider} feed connector received no trade for ` +
          `${ALARM_THRESHOLDS.feedSilenceMinutes} minutes: the provider, the connection or the connector's ` +
          'task (docs/operations.md#the-feed-connector-is-silent-or-reconnects-a-lot).',
      });
      this.feedDisplacedAlarm = this.alarm(
        'FeedDisplacedAlarm',
        serviceMetric('feedDisplaced', { period: Duration.minutes(5) }),
        {
          threshold: ALARM_THRESHOLDS.feedDisplacements,
          description:
            `Another connection on the ${props.feedConnector.provider} feed's key took the feed from the ` +
            'connector: a second connector or client uses the key; the connector stops after 5 in 10 minutes ' +
            '(docs/operations.md#the-feed-connector-was-displaced).',
        },
      );
    }

    if (props.ingestConsumer) {
      this.consumerBehindAlarm = this.alarm(
        'ConsumerBehindAlarm',
        serviceMetric('consumerBehind', { statistic: Stats.MAXIMUM }),
        {
          threshold: ALARM_THRESHOLDS.consumerBehindMs,
          evaluationPeriods: 3,
          comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
          description:
            'The ingest consumer reads a shard more than a minute behind the stream, 3 minutes running: it ' +
            'cannot keep up or a shard is stuck, so quotes and candles are late ' +
            '(docs/operations.md#ingest-consumer-on-aws).',
        },
      );
      this.consumerSilentAlarm = this.alarm(
        'ConsumerSilentAlarm',
        serviceMetric('consumerBehind', { statistic: Stats.SAMPLE_COUNT }),
        {
          threshold: 1,
          evaluationPeriods: ALARM_THRESHOLDS.consumerSilentMinutes,
          comparison: ComparisonOperator.LESS_THAN_THRESHOLD,
          // No point is the failure itself: the holder reports ConsumerBehind whatever the traffic.
          treatMissingData: TreatMissingData.BREACHING,
          description:
            `No ingest consumer task reported its reading for ${ALARM_THRESHOLDS.consumerSilentMinutes} ` +
            'minutes: none holds the lease and reads the shards, so no trade is ingested. See the service’s ' +
            'tasks and log group (docs/operations.md#ingest-consumer-on-aws).',
        },
      );
    }

    new MetricFilter(this, 'ThrottledRequestsFilter', {
      logGroup: props.restApi.accessLogs,
      filterPattern: FilterPattern.numberValue('$.status', '=', 429),
      metricNamespace: METRICS_NAMESPACE,
      metricName: THROTTLED_METRIC,
      metricValue: '1',
      defaultValue: 0,
    });

    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: `${Stack.of(this).stackName}-operations`,
    });
    this.dashboard.addWidgets(...dashboardWidgets(props, functions));
  }

  private functionAlarms(fn: ServiceFunction, props: OperationsProps): void {
    const name = fn.node.path.replace(/[^A-Za-z0-9]/g, '');
    const errors = fn.lambda.metricErrors({ period: Duration.minutes(5), statistic: Stats.SUM });
    const isAuthorizer = fn === props.restApi.authorizerFunction;
    this.alarm(
      `${name}ErrorsAlarm`,
      isAuthorizer
        ? // A 401 is the authorizer throwing Unauthorized, as API Gateway requires: not an error.
          new MathExpression({
            expression: 'errors - FILL(unauthorized, 0)',
            usingMetrics: {
              errors,
              unauthorized: serviceMetric('authorizerOutcomes', {
                dimensionValue: '401',
                period: Duration.minutes(5),
              }),
            },
            period: Duration.minutes(5),
          })
        : errors,
      {
        threshold: ALARM_THRESHOLDS.lambdaErrors,
        description: `${fn.node.path} failed (errors other than an expected 401): see its log group.`,
      },
    );
    this.alarm(
      `${name}ThrottlesAlarm`,
      fn.lambda.metricThrottles({ period: Duration.minutes(5), statistic: Stats.SUM }),
      {
        threshold: ALARM_THRESHOLDS.lambdaThrottles,
        description: `${fn.node.path} was throttled: the account's concurrency is exhausted.`,
      },
    );
  }

  private alarm(
    id: string,
    metric: IMetric,
    options: {
      threshold: number;
      description: string;
      evaluationPeriods?: number;
      comparison?: ComparisonOperator;
      /** @default NOT_BREACHING */
      treatMissingData?: TreatMissingData;
    },
  ): Alarm {
    return new Alarm(this, id, {
      metric,
      threshold: options.threshold,
      evaluationPeriods: options.evaluationPeriods ?? 1,
      comparisonOperator: options.comparison ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: options.treatMissingData ?? TreatMissingData.NOT_BREACHING,
      alarmDescription: options.description,
    });
  }
}

/**
 * 1 for each minute the market is open (the clock tick's MarketOpen, from the calendar) with no trade applied
 * (a minute without an ingest invocation counts as none); else 0. Missing MarketOpen (the clock tick did not
 * run) is not breaching: its own errors alarm pages then.
 */
export function feedSilence(): MathExpression {
  return new MathExpression({
    expression: 'IF(open > 0 AND FILL(applied, 0) <= 0, 1, 0)',
    usingMetrics: {
      open: serviceMetric('marketOpen', { statistic: Stats.MAXIMUM }),
      applied: serviceMetric('tradesApplied'),
    },
    period: Duration.minutes(1),
    label: 'open market, no trade applied',
  });
}

/**
 * 1 for each minute the market is open with no trade received by the feed connector (a minute in which it
 * recorded nothing, its task down included, counts as none); else 0. It tells the connector's silence apart
 * from the stream's or ingestion's, which the feed-silence alarm above also covers.
 */
export function feedConnectorSilence(): MathExpression {
  return new MathExpression({
    expression: 'IF(open > 0 AND FILL(received, 0) <= 0, 1, 0)',
    usingMetrics: {
      open: serviceMetric('marketOpen', { statistic: Stats.MAXIMUM }),
      received: serviceMetric('feedTradesReceived'),
    },
    period: Duration.minutes(1),
    label: 'open market, no trade received',
  });
}

const THROTTLED_OPERATIONS = [
  Operation.GET_ITEM,
  Operation.BATCH_GET_ITEM,
  Operation.QUERY,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.DELETE_ITEM,
  Operation.BATCH_WRITE_ITEM,
];

/** A table's throttled requests over the operations the functions use, ids unique across tables. */
function tableThrottles(tableId: (typeof TABLE_IDS)[number], tables: TableConstructs, period: Duration) {
  const usingMetrics: Record<string, IMetric> = {};
  for (const operation of THROTTLED_OPERATIONS) {
    usingMetrics[`${tableId}${operation}`.toLowerCase()] = new Metric({
      namespace: 'AWS/DynamoDB',
      metricName: 'ThrottledRequests',
      dimensionsMap: { TableName: tables[tableId].tableName, Operation: operation },
      statistic: Stats.SUM,
      period,
    });
  }
  return new MathExpression({
    expression: Object.keys(usingMetrics)
      .map((key) => `FILL(${key}, 0)`)
      .join(' + '),
    usingMetrics,
    period,
    label: `${tableId} throttled`,
  });
}

function graph(title: string, left: IMetric[], right: IMetric[] = []): GraphWidget {
  return new GraphWidget({ title, left, right, width: 8, height: 6 });
}

const MINUTE = Duration.minutes(1);

/** A row's title, the width of the dashboard. */
function heading(markdown: string): TextWidget {
  return new TextWidget({ markdown, width: 24, height: 1 });
}

/**
 * The dashboard, one row per part of the service (docs/operations.md#reading-the-dashboard): REST, ingest,
 * the ingest consumer (when deployed), analytics, WebSocket (when deployed), the feed connector (when
 * deployed), DynamoDB, Lambda.
 */
function dashboardWidgets(props: OperationsProps, functions: readonly ServiceFunction[]) {
  return [
    ...restRow(props.restApi.api),
    ...ingestRow(props.ingestion),
    ...(props.ingestConsumer ? ingestConsumerWidgets(props.ingestConsumer) : []),
    ...analyticsRow(),
    ...(props.webSocketApi ? webSocketRow(props.webSocketApi.api) : []),
    ...(props.feedConnector ? feedConnectorWidgets(props.feedConnector) : []),
    ...dynamoRow(props.tables),
    ...lambdaRow(functions),
  ];
}

function restRow(api: OperationsProps['restApi']['api']) {
  return [
    heading('## REST\nRequests, latency, errors and throttling (docs/operations.md#reading-the-dashboard)'),
    graph('REST requests', [api.metricCount({ period: MINUTE })]),
    graph('REST latency (ms)', [
      api.metricLatency({ statistic: Stats.p(50), period: MINUTE }),
      api.metricLatency({ statistic: Stats.p(99), period: MINUTE }),
    ]),
    graph(
      'REST 4xx / 5xx / throttled',
      [api.metricClientError({ period: MINUTE }), api.metricServerError({ period: MINUTE })],
      [
        new Metric({
          namespace: METRICS_NAMESPACE,
          metricName: THROTTLED_METRIC,
          statistic: Stats.SUM,
          period: MINUTE,
        }),
      ],
    ),
  ];
}

function ingestRow(ingestion: OperationsProps['ingestion']) {
  return [
    heading('## Ingest'),
    graph(
      'Trades applied / refused',
      [serviceMetric('tradesApplied'), serviceMetric('latePrints')],
      [
        ...['duplicate', 'late', 'future', 'outside_session', 'invalid', 'poison'].map((reason) =>
          serviceMetric('tradesRefused', { dimensionValue: reason }),
        ),
      ],
    ),
    graph(
      'Ingest lag (ms) / iterator age (ms)',
      [serviceMetric('ingestLag', { statistic: Stats.MAXIMUM })],
      [ingestion.ingestFunction.lambda.metric('IteratorAge', { statistic: Stats.MAXIMUM, period: MINUTE })],
    ),
    graph(
      'Batch size / dead-lettered',
      [serviceMetric('ingestBatchSize', { statistic: Stats.AVERAGE })],
      [serviceMetric('deadLettered')],
    ),
  ];
}

function analyticsRow() {
  return [
    heading('## Analytics'),
    graph('Alerts and breaks fired', [serviceMetric('alertsFired'), serviceMetric('breaksFired')]),
    graph(
      'Candles completed / states changed',
      [serviceMetric('candlesCompleted')],
      [serviceMetric('stateChanges')],
    ),
    graph('Feed silence (1 = open market, no trade)', [feedSilence()]),
  ];
}

function webSocketRow(wsApi: NonNullable<OperationsProps['webSocketApi']>['api']) {
  const gatewayCount = (metricName: string) =>
    new Metric({
      namespace: 'AWS/ApiGateway',
      metricName,
      dimensionsMap: { ApiId: wsApi.apiId },
      statistic: Stats.SUM,
      period: MINUTE,
    });
  return [
    heading('## WebSocket'),
    graph('Connections / messages', [gatewayCount('ConnectCount')], [gatewayCount('MessageCount')]),
    graph('Pushes sent / their frames / gone / failed', [
      serviceMetric('pushesSent'),
      serviceMetric('pushFrames'),
      serviceMetric('pushesGone'),
      serviceMetric('pushesFailed'),
    ]),
    graph('Push lag (ms)', [serviceMetric('pushLag', { statistic: Stats.MAXIMUM })]),
  ];
}

function dynamoRow(tables: TableConstructs) {
  return [
    heading('## DynamoDB'),
    graph(
      'Throttled requests',
      TABLE_IDS.map((tableId) => tableThrottles(tableId, tables, MINUTE)),
    ),
    graph(
      'Consumed read / write capacity',
      TABLE_IDS.map((tableId) => tables[tableId].metricConsumedReadCapacityUnits({ period: MINUTE })),
      TABLE_IDS.map((tableId) => tables[tableId].metricConsumedWriteCapacityUnits({ period: MINUTE })),
    ),
  ];
}

function lambdaRow(functions: readonly ServiceFunction[]) {
  return [
    heading('## Lambda'),
    graph(
      'Errors',
      functions.map((fn) => fn.lambda.metricErrors({ period: MINUTE })),
    ),
    graph(
      'Throttles',
      functions.map((fn) => fn.lambda.metricThrottles({ period: MINUTE })),
    ),
    graph(
      'Duration p99 (ms)',
      functions.map((fn) => fn.lambda.metricDuration({ statistic: Stats.p(99), period: MINUTE })),
    ),
    graph(
      'Concurrent executions',
      functions.map((fn) =>
        fn.lambda.metric('ConcurrentExecutions', { statistic: Stats.MAXIMUM, period: MINUTE }),
      ),
    ),
  ];
}

/** Per second over each point's period: the connector's counts as rates. */
function perSecond(id: 'feedTradesReceived' | 'feedTradesPut', label: string): MathExpression {
  const key = id.toLowerCase();
  return new MathExpression({
    expression: `FILL(${key}, 0) / PERIOD(${key})`,
    usingMetrics: { [key]: serviceMetric(id) },
    period: Duration.minutes(1),
    label,
  });
}

/** The feed connector's row (docs/operations.md#reading-the-dashboard). */
function feedConnectorWidgets(connector: FeedConnector) {
  return [
    heading(`## Feed connector (${connector.provider})\nTrades in and out, reconnects, gaps, lag, the task`),
    graph(
      'Trades/s received / put',
      [perSecond('feedTradesReceived', 'received/s'), perSecond('feedTradesPut', 'put/s')],
      [serviceMetric('feedConnected', { statistic: Stats.MINIMUM })],
    ),
    graph(
      'Reconnects, displacements / gap seconds',
      [serviceMetric('feedReconnects'), serviceMetric('feedDisplaced')],
      [serviceMetric('feedGapSeconds'), feedConnectorSilence()],
    ),
    graph('Lag from the trade’s time (ms)', [
      serviceMetric('feedLag', { statistic: Stats.p(50) }),
      serviceMetric('feedLag', { statistic: Stats.p(99) }),
      serviceMetric('feedLag', { statistic: Stats.MAXIMUM }),
    ]),
    graph('Task CPU / memory (%)', [
      connector.service.metricCpuUtilization({ period: MINUTE }),
      connector.service.metricMemoryUtilization({ period: MINUTE }),
    ]),
  ];
}

/** The windowed ingest consumer's row (docs/operations.md#ingest-consumer-on-aws). */
function ingestConsumerWidgets(consumer: IngestConsumerService) {
  return [
    heading('## Ingest consumer\nHow far its reading trails the stream, the lease taken, the tasks'),
    graph('Behind the stream (ms)', [serviceMetric('consumerBehind', { statistic: Stats.MAXIMUM })]),
    graph('Lease taken (start or takeover)', [serviceMetric('consumerLeaseTaken')]),
    // The busiest task's (Maximum): the holder's, which the idle standby's would halve in the average.
    graph('Busiest task CPU / memory (%)', [
      consumer.service.metricCpuUtilization({ period: MINUTE, statistic: Stats.MAXIMUM }),
      consumer.service.metricMemoryUtilization({ period: MINUTE, statistic: Stats.MAXIMUM }),
    ]),
  ];
}
