import { basename } from 'node:path';
import { Duration, Stack, TimeZone } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { SecurityGroup, Vpc } from 'aws-cdk-lib/aws-ec2';
import type { DockerImageAsset } from 'aws-cdk-lib/aws-ecr-assets';
import type {
  Cluster,
  ContainerDefinition,
  FargateService,
  FargateTaskDefinition,
} from 'aws-cdk-lib/aws-ecs';
import { type IPrincipal, PolicyStatement, type Role } from 'aws-cdk-lib/aws-iam';
import type { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Schedule, ScheduleExpression, ScheduleTargetInput } from 'aws-cdk-lib/aws-scheduler';
import { Universal } from 'aws-cdk-lib/aws-scheduler-targets';
import { Construct } from 'constructs';
import {
  type ConsumerTaskSize,
  INGEST_CONSUMER_ENTRY,
  INGEST_CONSUMER_ENV,
  INGEST_CONSUMER_SERVICE_NAME,
  INGEST_CONSUMER_SIZE_SCHEDULE,
  INGEST_CONSUMER_TASKS,
} from '#contracts/ingest-consumer';
import { METRICS_NAMESPACE, METRICS_NAMESPACE_ENV } from '#contracts/metrics';
import { SERVICE_NAME } from '#contracts/runtime-settings';
import { arm64Task, containersImage, publicService, publicTaskNetwork, taskRole } from './fargate-task.ts';
import type { BindingTarget } from './service-function.ts';
import type { TradeIngestion } from './trade-ingestion.ts';

/**
 * How long ECS waits after SIGTERM before SIGKILL: the process commits what it folded and releases the lease,
 * so a standby takes over at once rather than after the lease's takeover wait (Fargate: at most 120 s).
 */
export const INGEST_CONSUMER_STOP_TIMEOUT = Duration.seconds(60);

/**
 * The container's command: the consumer's bundle in the containers' image, named after its entry as the
 * image's bundle step names it (scripts/bundle-feed-connector.ts).
 */
export const INGEST_CONSUMER_COMMAND = [
  'node',
  '--enable-source-maps',
  `dist/${basename(INGEST_CONSUMER_ENTRY, '.ts')}.mjs`,
] as const;

/** The stack outputs present unless `-c ingest=lambda`: where the operator reads the consumer's logs and tasks. */
export const INGEST_CONSUMER_STACK_OUTPUTS = {
  logGroupName: 'IngestConsumerLogGroupName',
  clusterName: 'IngestConsumerClusterName',
  serviceName: 'IngestConsumerServiceName',
} as const;

export interface IngestConsumerServiceProps {
  /**
   * The trade ingestion, deployed with `design: 'windows'`: its stream, its enhanced fan-out consumer and
   * what its ingest binds (bindIngest).
   */
  readonly ingestion: TradeIngestion;
  /** The table of the consumer's lease and shard positions (TABLES.consumerLeases). */
  readonly leases: ITable;
}

/**
 * The windowed ingest consumer on AWS (deployed unless `-c ingest=lambda`,
 * docs/adr/0026-long-running-ingest-consumer.md): a Fargate service running
 * functions/containers/ingest-consumer.ts from the containers' image, in place of the ingest Lambda's event
 * source mapping.
 *
 * - Two tasks: one holds the lease (an item of the consumerLeases table) and reads every shard through the
 *   ingest's enhanced fan-out consumer, the other stands by and takes the lease over once it has not been
 *   renewed for 5 s (CONSUMER_LEASE). A deployment starts the new tasks before stopping the old ones
 *   (minimum healthy 100 %, maximum 200 %): the old holder commits and hands the lease over at SIGTERM. A
 *   deployment whose tasks keep failing is stopped and rolled back (the circuit breaker).
 * - Two sizes (INGEST_CONSUMER_TASKS): a task definition for the session (the service's, as deployed) and one
 *   for the other hours, the same container at a fraction of the size. Two EventBridge schedules switch the
 *   service between them on weekdays (INGEST_CONSUMER_SIZE_SCHEDULE) with UpdateService, which ECS rolls out
 *   as a deployment: the handover above, and a size that fails to start is rolled back to the one running.
 *   A `cdk deploy` that changes the task definitions puts the service on the session's size until the next
 *   switch.
 * - Everything the ingest Lambda is given, given the same way (TradeIngestion.bindIngest): its tables, the
 *   dead-letter queue, the WebSocket stage's connections and the usage stream, as environment variables and
 *   grants to the task role; plus the stream, the consumer and the lease table, each with exactly the calls
 *   the process makes.
 * - Its own VPC of public subnets, no NAT gateway, HTTPS out only and nothing in, as the feed connector's
 *   (publicTaskNetwork): the two services deploy, scale and go away independently.
 */
export class IngestConsumerService extends Construct implements BindingTarget {
  readonly vpc: Vpc;
  readonly securityGroup: SecurityGroup;
  readonly cluster: Cluster;
  readonly image: DockerImageAsset;
  readonly logGroup: LogGroup;
  readonly taskRole: Role;
  readonly taskDefinition: FargateTaskDefinition;
  readonly container: ContainerDefinition;
  /** The task definition of the hours outside the session (INGEST_CONSUMER_TASKS.offSession). */
  readonly offSessionTaskDefinition: FargateTaskDefinition;
  readonly service: FargateService;
  /** The schedules switching the service to the session's size and back (INGEST_CONSUMER_SIZE_SCHEDULE). */
  readonly sizeSchedules: readonly Schedule[];
  /** Both sizes' containers: each gets the ingest's environment. */
  private readonly containers: ContainerDefinition[] = [];

  constructor(scope: Construct, id: string, props: IngestConsumerServiceProps) {
    super(scope, id);
    const { ingestion } = props;
    const streamConsumer = ingestion.consumer;
    if (ingestion.design !== 'windows' || !streamConsumer) {
      throw new Error(
        `${this.node.path} reads the trades through the ingest's enhanced fan-out consumer, in place of the ` +
          'ingest Lambda: its TradeIngestion must be deployed with design windows and enhancedFanOut',
      );
    }

    const network = publicTaskNetwork(this, {
      securityGroupDescription:
        'Ingest consumer: no inbound; outbound HTTPS only (Kinesis, DynamoDB and the other AWS APIs, the image registry)',
      egressDescription: 'HTTPS to the AWS APIs',
    });
    this.vpc = network.vpc;
    this.securityGroup = network.securityGroup;
    this.cluster = network.cluster;

    this.image = containersImage(this);

    this.taskRole = taskRole(
      this,
      `Task role of ${this.node.path}: read the trades stream through its consumer, hold the lease, ingest`,
    );
    // Exactly what the process calls on the stream, each on its one resource (stream.grantRead would add
    // GetRecords and GetShardIterator, which a subscriber never calls): the shards listed on the stream (and
    // listed again after a reshard), each subscribed through the consumer.
    this.taskRole.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['kinesis:ListShards'], resources: [ingestion.stream.streamArn] }),
    );
    this.taskRole.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['kinesis:SubscribeToShard'],
        resources: [streamConsumer.streamConsumerArn],
      }),
    );
    // The lease item and the shards' positions in it: read, written on a condition, renewed every second.
    this.taskRole.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
        resources: [props.leases.tableArn],
      }),
    );

    // Names, ARNs and URLs only. The ingest's tables, dead-letter queue, @connections URL and usage stream are
    // added to both sizes by bindIngest below, with the same variables as the ingest Lambda's.
    const environment = {
      [INGEST_CONSUMER_ENV.streamArn]: ingestion.stream.streamArn,
      [INGEST_CONSUMER_ENV.streamConsumerArn]: streamConsumer.streamConsumerArn,
      [INGEST_CONSUMER_ENV.leasesTable]: props.leases.tableName,
      AWS_REGION: Stack.of(this).region,
      // The Lambdas' service name, so the ingest's metrics land where the dashboard and alarms read them.
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      POWERTOOLS_LOG_LEVEL: 'INFO',
      // No X-Ray daemon runs beside the process, and loading the tracer costs CPU on every promise
      // (functions/runtime/tracer.ts).
      POWERTOOLS_TRACE_ENABLED: 'false',
      [METRICS_NAMESPACE_ENV]: METRICS_NAMESPACE,
    };
    const session = this.taskOfSize(this, INGEST_CONSUMER_TASKS.session, environment);
    this.logGroup = session.logGroup;
    this.taskDefinition = session.taskDefinition;
    this.container = session.container;
    // The other hours' size: the same container and role, its own task definition, the same log group.
    const offSession = this.taskOfSize(
      new Construct(this, 'OffSession'),
      INGEST_CONSUMER_TASKS.offSession,
      environment,
      session.logGroup,
    );
    this.offSessionTaskDefinition = offSession.taskDefinition;
    ingestion.bindIngest(this);

    this.service = publicService(this, {
      network,
      taskDefinition: this.taskDefinition,
      desiredCount: INGEST_CONSUMER_TASKS.count,
      // A deployment starts the new tasks (standbys) before stopping the old: the holder hands the lease over
      // at SIGTERM, and a task always stands by.
      minHealthyPercent: 100,
      maxHealthyPercent: 200,
    });
    this.sizeSchedules = [
      this.switchSize('SessionSize', this.taskDefinition, INGEST_CONSUMER_SIZE_SCHEDULE.sessionFrom),
      this.switchSize(
        'OffSessionSize',
        this.offSessionTaskDefinition,
        INGEST_CONSUMER_SIZE_SCHEDULE.offSessionFrom,
      ),
    ];
  }

  /**
   * The consumer's task definition at `size`, in `scope` (TaskDefinition, its container Consumer), logging to
   * `logGroup`, or to a log group of its own (Logs).
   */
  private taskOfSize(
    scope: Construct,
    size: ConsumerTaskSize,
    environment: Record<string, string>,
    logGroup?: LogGroup,
  ): ReturnType<typeof arm64Task> {
    const task = arm64Task(scope, {
      // The SDK's client CPU at the open's rate of calls, the posts on worker threads of their own
      // (docs/adr/0026-long-running-ingest-consumer.md); the dashboard shows the tasks' CPU and memory.
      cpu: size.vcpu * 1024,
      memoryMiB: size.memoryGb * 1024,
      role: this.taskRole,
      image: this.image,
      containerId: 'Consumer',
      command: INGEST_CONSUMER_COMMAND,
      stopTimeout: INGEST_CONSUMER_STOP_TIMEOUT,
      streamPrefix: INGEST_CONSUMER_SERVICE_NAME,
      ...(logGroup ? { logGroup } : {}),
      environment: { ...environment, [INGEST_CONSUMER_ENV.postWorkers]: String(size.postWorkers) },
      environmentHoldsNoSecret:
        'The environment holds the stream’s and its consumer’s ARNs, table and stream names, the dead-letter ' +
        'queue’s and the @connections URLs and logging settings, no credential: the task role signs the calls.',
    });
    this.containers.push(task.container);
    return task;
  }

  /**
   * A schedule (`id`) putting the service on `taskDefinition` on weekdays at `at`, New York time: UpdateService
   * through EventBridge Scheduler's universal target, with only that call on this service granted to it.
   */
  private switchSize(
    id: string,
    taskDefinition: FargateTaskDefinition,
    at: { readonly hour: number; readonly minute: number },
  ): Schedule {
    return new Schedule(this, id, {
      description: `${this.node.path}: the consumer's tasks at ${taskDefinition.node.path}'s size, weekdays from ${at.hour}:${String(at.minute).padStart(2, '0')} New York time`,
      schedule: ScheduleExpression.cron({
        minute: String(at.minute),
        hour: String(at.hour),
        weekDay: 'MON-FRI',
        timeZone: TimeZone.of(INGEST_CONSUMER_SIZE_SCHEDULE.timeZone),
      }),
      target: new Universal({
        service: 'ecs',
        action: 'updateService',
        input: ScheduleTargetInput.fromObject({
          Cluster: this.cluster.clusterName,
          Service: this.service.serviceName,
          TaskDefinition: taskDefinition.taskDefinitionArn,
        }),
        policyStatements: [
          new PolicyStatement({ actions: ['ecs:UpdateService'], resources: [this.service.serviceArn] }),
        ],
      }),
    });
  }

  /** The task role: what the ingest's bindings grant to. */
  get grantPrincipal(): IPrincipal {
    return this.taskRole;
  }

  /** Both sizes' containers' environment: where the ingest's bindings name their resources. */
  addEnvironment(name: string, value: string): void {
    for (const container of this.containers) container.addEnvironment(name, value);
  }
}
