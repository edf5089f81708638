import { type Duration, RemovalPolicy, Size, Stack, Validations } from 'aws-cdk-lib';
import { Peer, Port, SecurityGroup, SubnetType, Vpc } from 'aws-cdk-lib/aws-ec2';
import { DockerImageAsset, Platform } from 'aws-cdk-lib/aws-ecr-assets';
import {
  AwsLogDriverMode,
  Cluster,
  type ContainerDefinition,
  ContainerImage,
  CpuArchitecture,
  FargateService,
  FargateTaskDefinition,
  LogDrivers,
  OperatingSystemFamily,
} from 'aws-cdk-lib/aws-ecs';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { PROJECT_ROOT } from '#lib/project-root';

/**
 * The parts of the project's Fargate services (the feed connector, lib/constructs/feed-connector.ts; the
 * ingest consumer, lib/constructs/ingest-consumer.ts), made once: each is created in the service's own scope
 * under the id it always had, so a service's logical ids do not depend on which helper made them.
 */

/**
 * The containers' Dockerfile, relative to the build context (the project root, narrowed by .dockerignore): one
 * image holding the feed connector's, the ingest consumer's and its post workers' bundles.
 */
export const CONTAINERS_DOCKERFILE = 'functions/containers/feed-connector.Dockerfile';

/** The only port the tasks may reach: the providers' WebSocket and REST, and the AWS APIs, are all HTTPS. */
export const TASK_EGRESS_PORT = 443;

export interface PublicTaskNetwork {
  readonly vpc: Vpc;
  readonly securityGroup: SecurityGroup;
  readonly cluster: Cluster;
}

/**
 * The network of a Fargate service whose tasks call out and take no call in: a VPC of public subnets only in
 * two zones, no NAT gateway (the tasks get a public IP), a security group with no inbound rule and HTTPS out
 * only, and a cluster, created in `scope` as Vpc, SecurityGroup and Cluster.
 */
export function publicTaskNetwork(
  scope: Construct,
  options: {
    /** The security group's description (changing it replaces the group). */
    readonly securityGroupDescription: string;
    /** The egress rule's description. */
    readonly egressDescription: string;
  },
): PublicTaskNetwork {
  const vpc = new Vpc(scope, 'Vpc', {
    maxAzs: 2,
    natGateways: 0,
    subnetConfiguration: [{ name: 'Public', subnetType: SubnetType.PUBLIC, cidrMask: 24 }],
    // The default security group is used by nothing; restricting it needs a custom-resource Lambda.
    restrictDefaultSecurityGroup: false,
  });
  Validations.of(vpc).acknowledge({
    id: 'AwsSolutions-VPC7',
    reason:
      'The VPC holds one service’s tasks with no inbound rule; its flow logs would mostly record scans of ' +
      'the public addresses that the security group drops. The tasks log their own connections.',
  });

  const securityGroup = new SecurityGroup(scope, 'SecurityGroup', {
    vpc,
    description: options.securityGroupDescription,
    allowAllOutbound: false,
  });
  securityGroup.addEgressRule(Peer.anyIpv4(), Port.tcp(TASK_EGRESS_PORT), options.egressDescription);

  const cluster = new Cluster(scope, 'Cluster', { vpc });
  Validations.of(cluster).acknowledge({
    id: 'AwsSolutions-ECS4',
    reason:
      'One service: its tasks’ CPU and memory (AWS/ECS, free) and the process’s own metrics are on the ' +
      'dashboard; Container Insights would bill custom metrics for no more insight.',
  });
  return { vpc, securityGroup, cluster };
}

/**
 * The containers' image (CONTAINERS_DOCKERFILE), created in `scope` as Image. Every construct made by this
 * function has the same asset hash, so `cdk deploy` builds and pushes the image once however many services
 * run it.
 */
export function containersImage(scope: Construct): DockerImageAsset {
  return new DockerImageAsset(scope, 'Image', {
    directory: PROJECT_ROOT,
    file: CONTAINERS_DOCKERFILE,
    platform: Platform.LINUX_ARM64,
    displayName: 'containers image (feed connector, ingest consumer)',
  });
}

/**
 * A task role, `TaskRole` in `scope`, that only ECS tasks of this account may assume (the cross-service
 * confused-deputy guard); the service adds exactly the calls its process makes.
 */
export function taskRole(scope: Construct, description: string): Role {
  return new Role(scope, 'TaskRole', {
    assumedBy: new ServicePrincipal('ecs-tasks.amazonaws.com', {
      conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(scope).account } },
    }),
    description,
  });
}

export interface Arm64TaskProps {
  /** CPU units (1,024 a vCPU) and memory of the task. */
  readonly cpu: number;
  readonly memoryMiB: number;
  readonly role: Role;
  readonly image: DockerImageAsset;
  /** The container's id in the task definition. */
  readonly containerId: string;
  /** The image's command, when not its default (the feed connector's). */
  readonly command?: readonly string[];
  /** How long ECS waits after SIGTERM before SIGKILL (Fargate: at most 120 s). */
  readonly stopTimeout: Duration;
  /** The log streams' prefix. */
  readonly streamPrefix: string;
  /** The log group, when another task definition of the service made it; by default one of its own. */
  readonly logGroup?: LogGroup;
  readonly environment: Record<string, string>;
  /** Why the environment holds no credential (cdk-nag AwsSolutions-ECS2). */
  readonly environmentHoldsNoSecret: string;
}

/**
 * A Linux ARM64 task definition in `scope` (`TaskDefinition`) of one essential container with a read-only root
 * file system, logging to a log group of its own (`Logs`, a month) or `logGroup` without ever blocking the
 * process: writing to stdout never stalls its event loop (a stalled loop misses a provider's pings or the
 * lease's renewals), lines wait in a buffer while CloudWatch Logs is slow.
 */
export function arm64Task(
  scope: Construct,
  props: Arm64TaskProps,
): { logGroup: LogGroup; taskDefinition: FargateTaskDefinition; container: ContainerDefinition } {
  const logGroup =
    props.logGroup ??
    new LogGroup(scope, 'Logs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
  const taskDefinition = new FargateTaskDefinition(scope, 'TaskDefinition', {
    cpu: props.cpu,
    memoryLimitMiB: props.memoryMiB,
    runtimePlatform: {
      cpuArchitecture: CpuArchitecture.ARM64,
      operatingSystemFamily: OperatingSystemFamily.LINUX,
    },
    taskRole: props.role,
  });
  const container = taskDefinition.addContainer(props.containerId, {
    image: ContainerImage.fromDockerImageAsset(props.image),
    ...(props.command ? { command: [...props.command] } : {}),
    essential: true,
    readonlyRootFilesystem: true,
    stopTimeout: props.stopTimeout,
    logging: LogDrivers.awsLogs({
      logGroup,
      streamPrefix: props.streamPrefix,
      mode: AwsLogDriverMode.NON_BLOCKING,
      maxBufferSize: Size.mebibytes(25),
    }),
    environment: props.environment,
  });
  Validations.of(taskDefinition).acknowledge({
    id: 'AwsSolutions-ECS2',
    reason: props.environmentHoldsNoSecret,
  });
  Validations.of(taskDefinition.obtainExecutionRole()).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason:
      'ECS’s execution role pulls the image: ecr:GetAuthorizationToken has no resource-level permission, ' +
      'so its resource is "*"; the pull itself is limited to the assets repository.',
  });
  return { logGroup, taskDefinition, container };
}

/**
 * The service (`Service` in `scope`) running `taskDefinition` in the public network's subnets with a public IP,
 * stopping and rolling back a deployment whose tasks keep failing (the circuit breaker).
 */
export function publicService(
  scope: Construct,
  props: {
    readonly network: PublicTaskNetwork;
    readonly taskDefinition: FargateTaskDefinition;
    readonly desiredCount: number;
    readonly minHealthyPercent: number;
    readonly maxHealthyPercent: number;
  },
): FargateService {
  return new FargateService(scope, 'Service', {
    cluster: props.network.cluster,
    taskDefinition: props.taskDefinition,
    desiredCount: props.desiredCount,
    minHealthyPercent: props.minHealthyPercent,
    maxHealthyPercent: props.maxHealthyPercent,
    circuitBreaker: { enable: true, rollback: true },
    assignPublicIp: true,
    vpcSubnets: { subnetType: SubnetType.PUBLIC },
    securityGroups: [props.network.securityGroup],
  });
}
