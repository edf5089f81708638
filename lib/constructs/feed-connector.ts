import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { SecurityGroup, Vpc } from 'aws-cdk-lib/aws-ec2';
import type { DockerImageAsset } from 'aws-cdk-lib/aws-ecr-assets';
import type {
  Cluster,
  ContainerDefinition,
  FargateService,
  FargateTaskDefinition,
} from 'aws-cdk-lib/aws-ecs';
import { PolicyStatement, type Role } from 'aws-cdk-lib/aws-iam';
import type { IStream } from 'aws-cdk-lib/aws-kinesis';
import type { LogGroup } from 'aws-cdk-lib/aws-logs';
import { type CfnSecret, type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { FEED_CREDENTIAL_NAMES, FEED_ENV, FEED_SERVICE_NAME, type FeedProvider } from '#contracts/feed';
import { METRICS_NAMESPACE, METRICS_NAMESPACE_ENV } from '#contracts/metrics';
import { arm64Task, containersImage, publicService, publicTaskNetwork, taskRole } from './fargate-task.ts';

/** How long ECS waits after SIGTERM before SIGKILL: the connector flushes what it holds (Fargate: at most 120). */
export const FEED_CONNECTOR_STOP_TIMEOUT = Duration.seconds(30);

export interface FeedConnectorProps {
  readonly provider: FeedProvider;
  /** The trades stream the connector puts records into. */
  readonly stream: IStream;
  /** The table keeping each feed's position across restarts (TABLES.feedPositions). */
  readonly positions: ITable;
  /**
   * An existing secret holding the provider's credentials (`-c feedSecretName=NAME`); without it the
   * construct creates an empty secret the operator fills (docs/data-sources.md#on-aws).
   */
  readonly secretName?: string;
  /** Another endpoint of the same protocol (`-c feedUrl=...`, FEED_URL), e.g. Alpaca's `sip` feed. */
  readonly url?: string;
  /**
   * Tasks the service runs: 1, or 0 to create the service (and the secret) before the secret holds
   * credentials (`-c feedTasks=0`, docs/data-sources.md#on-aws). @default 1
   */
  readonly desiredCount?: 0 | 1;
}

/**
 * The live feed connector on AWS (docs/adr/0015-feed-connector-container.md): one Fargate task running
 * functions/containers/feed-connector.ts from an image `cdk deploy` builds, holding one connection to the
 * provider and putting its trades on the trades stream.
 *
 * - One task at most, ever: ECS replaces a task that stops, stopping the old one before starting the new one
 *   (minimum healthy 0 %, maximum 100 %), since a provider allows one connection per feed; a deployment whose
 *   tasks keep failing is stopped and rolled back (the circuit breaker).
 * - Credentials in Secrets Manager, read by the task with the SDK at start (FEED_SECRET_ARN), never in the
 *   template, the task definition or the logs. The task role may put records on the trades stream, read
 *   that one secret, and get and put its position items, nothing else.
 * - A VPC with public subnets only and a public IP for the task: egress to the internet on 443 without a NAT
 *   gateway; no inbound rule.
 */
export class FeedConnector extends Construct {
  readonly provider: FeedProvider;
  readonly vpc: Vpc;
  readonly securityGroup: SecurityGroup;
  readonly cluster: Cluster;
  readonly secret: ISecret;
  /** The ARN the task reads the secret by (a name's partial ARN for an existing secret). */
  readonly secretArn: string;
  readonly image: DockerImageAsset;
  readonly logGroup: LogGroup;
  readonly taskRole: Role;
  readonly taskDefinition: FargateTaskDefinition;
  readonly container: ContainerDefinition;
  readonly service: FargateService;

  constructor(scope: Construct, id: string, props: FeedConnectorProps) {
    super(scope, id);
    this.provider = props.provider;

    const network = publicTaskNetwork(this, {
      securityGroupDescription:
        'Feed connector: no inbound; outbound HTTPS only (provider, AWS APIs, the image registry)',
      egressDescription: 'HTTPS and WSS to the provider and the AWS APIs',
    });
    this.vpc = network.vpc;
    this.securityGroup = network.securityGroup;
    this.cluster = network.cluster;

    this.secret = props.secretName
      ? Secret.fromSecretNameV2(this, 'Secret', props.secretName)
      : emptySecret(this, props.provider);
    this.secretArn = this.secret.secretArn;

    this.image = containersImage(this);

    this.taskRole = taskRole(
      this,
      `Task role of ${this.node.path}: put trades on the stream, read the feed secret, keep its position`,
    );
    // Exactly what the connector calls, each on its one resource (stream.grantWrite would add PutRecord,
    // ListShards and DescribeStreamSummary; secret.grantRead would add DescribeSecret).
    this.taskRole.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['kinesis:PutRecords'], resources: [props.stream.streamArn] }),
    );
    this.taskRole.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['secretsmanager:GetSecretValue'],
        // A secret named in the context has a partial ARN: its full ARN ends with six random characters.
        resources: [this.secret.secretFullArn ?? `${this.secret.secretArn}-??????`],
      }),
    );
    // Its position per feed, read once at start and written every few seconds (functions/adapters/dynamo/
    // feed-position-store.ts): one item by key, never a query.
    this.taskRole.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['dynamodb:GetItem', 'dynamodb:PutItem'],
        resources: [props.positions.tableArn],
      }),
    );

    const task = arm64Task(this, {
      // The connector waits on one socket and batches PutRecords: a quarter of a vCPU on ARM64 is plenty
      // (the dashboard shows its CPU and memory).
      cpu: 256,
      memoryMiB: 512,
      role: this.taskRole,
      image: this.image,
      containerId: 'Connector',
      stopTimeout: FEED_CONNECTOR_STOP_TIMEOUT,
      streamPrefix: FEED_SERVICE_NAME,
      // Names and ARNs only: the credentials are read from the secret at start.
      environment: {
        [FEED_ENV.provider]: props.provider,
        [FEED_ENV.secretArn]: this.secretArn,
        [FEED_ENV.streamName]: props.stream.streamName,
        [FEED_ENV.positionsTable]: props.positions.tableName,
        ...(props.url ? { [FEED_ENV.url]: props.url } : {}),
        AWS_REGION: Stack.of(this).region,
        POWERTOOLS_SERVICE_NAME: FEED_SERVICE_NAME,
        POWERTOOLS_LOG_LEVEL: 'INFO',
        [METRICS_NAMESPACE_ENV]: METRICS_NAMESPACE,
      },
      environmentHoldsNoSecret:
        'The environment holds the provider name, the trades stream name, the secret’s ARN and logging ' +
        'settings, no credential: the connector reads the credentials from Secrets Manager at start.',
    });
    this.logGroup = task.logGroup;
    this.taskDefinition = task.taskDefinition;
    this.container = task.container;

    this.service = publicService(this, {
      network,
      taskDefinition: this.taskDefinition,
      desiredCount: props.desiredCount ?? 1,
      // Never two connections to the provider: the old task stops before its replacement starts.
      minHealthyPercent: 0,
      maxHealthyPercent: 100,
    });
  }
}

/**
 * A secret with no value for the operator to fill (`aws secretsmanager put-secret-value`): the CDK's Secret
 * would otherwise generate a random password, which is no provider's credential.
 */
function emptySecret(scope: Construct, provider: FeedProvider): Secret {
  const keys = FEED_CREDENTIAL_NAMES[provider].map((key) => `"${key}": "..."`).join(', ');
  const secret = new Secret(scope, 'Secret', {
    description: `Credentials of the ${provider} feed, as JSON {${keys}}; put by the operator (docs/data-sources.md#on-aws)`,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  (secret.node.defaultChild as CfnSecret).addPropertyDeletionOverride('GenerateSecretString');
  Validations.of(secret).acknowledge({
    id: 'AwsSolutions-SMG4',
    reason:
      'The provider issues the API key in its own dashboard; Secrets Manager cannot rotate it. The operator ' +
      'rotates it there and puts the new value (docs/operations.md).',
  });
  return secret;
}
