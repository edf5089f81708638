import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  FEED_CONNECTOR_ENTRY,
  FEED_CREDENTIAL_NAMES,
  FEED_ENV,
  FEED_SERVICE_NAME,
  FEED_STACK_OUTPUTS,
} from '#contracts/feed';
import { METRICS, METRICS_NAMESPACE } from '#contracts/metrics';
import { STACK_NAME } from '#contracts/stack-outputs';
import { CONTAINERS_DOCKERFILE } from '#lib/constructs/fargate-task';
import { FEED_CONNECTOR_STOP_TIMEOUT } from '#lib/constructs/feed-connector';
import { ALARM_THRESHOLDS } from '#lib/constructs/operations';
import { FEED_CONTEXT, INGEST_CONTEXT } from '#lib/market-data-stack';
import { acknowledgementsOf, nagFindingsOf } from './support/cdk-nag.ts';
import { expectNonBlockingLogs, expectPublicTaskNetwork } from './support/fargate-task.ts';
import { synthServiceStack } from './support/service-stack.ts';
import { synthWithoutDocker } from './support/synth-without-docker.ts';
import { logicalIdOf, policyStatementsOfRole, resourceOf, resourcesOfType } from './support/template.ts';

const FEED_RESOURCE_TYPES = /^AWS::(ECS|EC2|SecretsManager)::/;

describe('FeedConnector off by default', () => {
  // With the ingest Lambda: the windowed consumer's own cluster and network would hide the connector's.
  const { stack, template } = synthServiceStack({ [INGEST_CONTEXT]: 'lambda' });

  it('adds no cluster, task, VPC, secret, connector alarm or output without -c feed', () => {
    expect(stack.feedConnector).toBeUndefined();
    const outputs = Object.keys(template.toJSON().Outputs);
    for (const output of Object.values(FEED_STACK_OUTPUTS)) expect(outputs).not.toContain(output);
    expect(stack.operations.feedConnectorSilenceAlarm).toBeUndefined();
    expect(stack.operations.feedDisplacedAlarm).toBeUndefined();
    expect(
      Object.values(template.toJSON().Resources as Record<string, { Type: string }>)
        .map(({ Type }) => Type)
        .filter((type) => FEED_RESOURCE_TYPES.test(type)),
    ).toEqual([]);
  });
});

describe('FeedConnector context', () => {
  it.each([
    [{ [FEED_CONTEXT.provider]: 'iex' }, /feed must be one of alpaca, polygon/],
    [{ [FEED_CONTEXT.provider]: 'alpaca', [FEED_CONTEXT.tasks]: '2' }, /feedTasks must be 0 or 1/],
    // The connector's own rule for FEED_URL (functions/contracts/endpoints.ts), at synth rather than at start.
    [
      { [FEED_CONTEXT.provider]: 'alpaca', [FEED_CONTEXT.url]: 'ws://stream.data.alpaca.markets/v2/sip' },
      /^CDK context feedUrl must be a wss:\/\/ URL \(ws:\/\/ only to a loopback address\): ws:\/\/stream\.data\.alpaca\.markets would carry the credentials in clear text$/,
    ],
    [
      { [FEED_CONTEXT.provider]: 'polygon', [FEED_CONTEXT.url]: 'https://socket.polygon.io/stocks' },
      /^CDK context feedUrl must be a wss:\/\/ URL .* over another protocol$/,
    ],
    [
      { [FEED_CONTEXT.provider]: 'polygon', [FEED_CONTEXT.url]: 'socket.polygon.io' },
      /^CDK context feedUrl is not a URL: socket\.polygon\.io$/,
    ],
  ])('stops synthesis on %j', (context, message) => {
    expect(() => synthServiceStack(context)).toThrow(message);
  });
});

describe('FeedConnector with -c feed=alpaca', () => {
  const { stack, template } = synthServiceStack({ [FEED_CONTEXT.provider]: 'alpaca' });
  const connector = stack.feedConnector;
  if (!connector) throw new Error('no feed connector with -c feed=alpaca');
  const secretId = logicalIdOf(connector.secret as never);
  const streamId = logicalIdOf(stack.ingestion.stream);
  const positionsId = logicalIdOf(stack.data.tables.feedPositions);
  const taskDefinition = resourceOf(template, logicalIdOf(connector.taskDefinition)).Properties;
  const [container, ...otherContainers] = taskDefinition.ContainerDefinitions;
  const service = resourceOf(template, logicalIdOf(connector.service)).Properties;

  it('runs one task, never two at once, restarted and rolled back by ECS when it keeps failing', () => {
    const consumerService = logicalIdOf(stack.ingestConsumer?.service ?? expect.unreachable('no consumer'));
    expect(
      resourcesOfType(template, 'AWS::ECS::Service')
        .map(([logicalId]) => logicalId)
        .filter((logicalId) => logicalId !== consumerService),
    ).toEqual([logicalIdOf(connector.service)]);
    expect(service).toMatchObject({
      LaunchType: 'FARGATE',
      DesiredCount: 1,
      DeploymentConfiguration: {
        MinimumHealthyPercent: 0,
        MaximumPercent: 100,
        DeploymentCircuitBreaker: { Enable: true, Rollback: true },
      },
    });
    expect(otherContainers).toEqual([]);
    expect(container.Essential).toBe(true);
  });

  it('runs the image built from the project’s Dockerfile, on ARM64, stopping within the timeout', () => {
    expect(container.Image['Fn::Sub']).toContain(`:${connector.image.assetHash}`);
    expect(taskDefinition).toMatchObject({
      RequiresCompatibilities: ['FARGATE'],
      RuntimePlatform: { CpuArchitecture: 'ARM64', OperatingSystemFamily: 'LINUX' },
      Cpu: '256',
      Memory: '512',
    });
    expect(container.StopTimeout).toBe(FEED_CONNECTOR_STOP_TIMEOUT.toSeconds());
    expect(container.ReadonlyRootFilesystem).toBe(true);
  });

  it('gives the task the contract’s configuration: names and ARNs, no credential', () => {
    const environment = Object.fromEntries(
      (container.Environment as { Name: string; Value: unknown }[]).map(({ Name, Value }) => [Name, Value]),
    );
    expect(environment).toEqual({
      [FEED_ENV.provider]: 'alpaca',
      [FEED_ENV.secretArn]: { Ref: secretId },
      [FEED_ENV.streamName]: { Ref: streamId },
      [FEED_ENV.positionsTable]: { Ref: positionsId },
      AWS_REGION: { Ref: 'AWS::Region' },
      POWERTOOLS_SERVICE_NAME: FEED_SERVICE_NAME,
      POWERTOOLS_LOG_LEVEL: 'INFO',
      POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
    });
    // Not injected by ECS either (that would put the values in the container's environment).
    expect(container.Secrets).toBeUndefined();
  });

  it('creates the secret empty, for the operator to fill: no value in the template', () => {
    const secret = resourceOf(template, secretId).Properties;
    expect(secret.SecretString).toBeUndefined();
    expect(secret.GenerateSecretString).toBeUndefined();
    for (const key of FEED_CREDENTIAL_NAMES.alpaca) expect(secret.Description).toContain(key);
    const json = JSON.stringify(template.toJSON());
    expect(json).not.toMatch(/SecretString/);
    // No credential name reaches the template but the secret's description.
    const { Description: _description, ...rest } = secret;
    expect(JSON.stringify({ ...template.toJSON().Resources, [secretId]: rest })).not.toMatch(
      /APCA_API_KEY_ID|APCA_API_SECRET_KEY/,
    );
  });

  it('lets the task role put records on the trades stream, read the secret, keep its position, nothing else', () => {
    const roleId = logicalIdOf(connector.taskRole);
    expect(resourceOf(template, roleId).Properties.ManagedPolicyArns).toBeUndefined();
    expect(policyStatementsOfRole(template, roleId)).toEqual([
      { Action: 'kinesis:PutRecords', Effect: 'Allow', Resource: { 'Fn::GetAtt': [streamId, 'Arn'] } },
      { Action: 'secretsmanager:GetSecretValue', Effect: 'Allow', Resource: { Ref: secretId } },
      {
        Action: ['dynamodb:GetItem', 'dynamodb:PutItem'],
        Effect: 'Allow',
        Resource: { 'Fn::GetAtt': [positionsId, 'Arn'] },
      },
    ]);
  });

  it('lets only ECS tasks of this account assume the task role', () => {
    const trust = resourceOf(template, logicalIdOf(connector.taskRole)).Properties.AssumeRolePolicyDocument;
    expect(trust.Statement).toEqual([
      expect.objectContaining({
        Principal: { Service: 'ecs-tasks.amazonaws.com' },
        Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
      }),
    ]);
  });

  it('gives the execution role the image pull and the log group only (not the secret, not the stream)', () => {
    const executionRole = connector.taskDefinition.executionRole;
    if (!executionRole) throw new Error('no execution role');
    const statements = policyStatementsOfRole(template, logicalIdOf(executionRole));
    const actions = statements.flatMap(({ Action }) => (Array.isArray(Action) ? Action : [Action])).sort();
    expect(actions).toEqual([
      'ecr:BatchCheckLayerAvailability',
      'ecr:BatchGetImage',
      'ecr:GetAuthorizationToken',
      'ecr:GetDownloadUrlForLayer',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
    ]);
    const logs = statements.find(({ Action }) => JSON.stringify(Action).includes('logs:'));
    expect(logs?.Resource).toEqual({ 'Fn::GetAtt': [logicalIdOf(connector.logGroup), 'Arn'] });
  });

  it('logs to its own log group, kept 30 days, never blocking the process', () => {
    expectNonBlockingLogs(template, container, connector.logGroup, FEED_SERVICE_NAME);
  });

  it('reaches the internet from public subnets with a public IP, no NAT gateway, HTTPS out only, nothing in', () => {
    expectPublicTaskNetwork(template, service, connector.securityGroup);
  });

  it('pages the alarm topic when the market is open and the connector received no trade for 5 minutes', () => {
    const alarm = connector && stack.operations.feedConnectorSilenceAlarm;
    if (!alarm) throw new Error('no feed connector silence alarm');
    const properties = resourceOf(template, logicalIdOf(alarm)).Properties;
    expect(properties).toMatchObject({
      Threshold: 1,
      EvaluationPeriods: ALARM_THRESHOLDS.feedSilenceMinutes,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: logicalIdOf(stack.operations.topic) }],
    });
    const [expression, ...inputs] = properties.Metrics as {
      Id: string;
      Expression?: string;
      MetricStat?: { Metric: { MetricName: string; Dimensions: unknown[] }; Stat: string };
    }[];
    expect(expression?.Expression).toBe('IF(open > 0 AND FILL(received, 0) <= 0, 1, 0)');
    expect(inputs.map(({ Id, MetricStat }) => [Id, MetricStat?.Metric.MetricName, MetricStat?.Stat])).toEqual(
      [
        ['open', METRICS.marketOpen.name, 'Maximum'],
        ['received', METRICS.feedTradesReceived.name, 'Sum'],
      ],
    );
    expect(inputs[1]?.MetricStat?.Metric.Dimensions).toEqual([{ Name: 'service', Value: FEED_SERVICE_NAME }]);
  });

  it('pages the alarm topic when another connection on the key displaced the connector', () => {
    const alarm = stack.operations.feedDisplacedAlarm;
    if (!alarm) throw new Error('no feed displaced alarm');
    const properties = resourceOf(template, logicalIdOf(alarm)).Properties;
    expect(properties).toMatchObject({
      MetricName: METRICS.feedDisplaced.name,
      Namespace: METRICS_NAMESPACE,
      Dimensions: [{ Name: 'service', Value: FEED_SERVICE_NAME }],
      Statistic: 'Sum',
      Period: 300,
      Threshold: ALARM_THRESHOLDS.feedDisplacements,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: logicalIdOf(stack.operations.topic) }],
    });
    expect(properties.AlarmDescription).toContain('docs/operations.md#the-feed-connector-was-displaced');
  });

  it('has a dashboard row with its trades, reconnects, gaps, lag, connection and task', () => {
    const [, dashboard] = resourcesOfType(template, 'AWS::CloudWatch::Dashboard')[0] ?? [];
    const body = JSON.stringify(dashboard?.Properties.DashboardBody);
    expect(body).toContain('## Feed connector (alpaca)');
    for (const id of [
      'feedTradesReceived',
      'feedTradesPut',
      'feedReconnects',
      'feedDisplaced',
      'feedGapSeconds',
      'feedLag',
      'feedConnected',
    ] as const) {
      expect(body).toContain(`\\"${METRICS[id].name}\\"`);
    }
    expect(body).toContain('\\"CPUUtilization\\"');
    expect(body).toContain(`\\"${FEED_SERVICE_NAME}\\"`);
  });

  it('publishes the secret, the log group, the cluster and the service for the operator', () => {
    const outputs = template.toJSON().Outputs;
    expect(outputs[FEED_STACK_OUTPUTS.secretArn].Value).toEqual({ Ref: secretId });
    expect(outputs[FEED_STACK_OUTPUTS.logGroupName].Value).toEqual({ Ref: logicalIdOf(connector.logGroup) });
    expect(outputs[FEED_STACK_OUTPUTS.clusterName].Value).toEqual({ Ref: logicalIdOf(connector.cluster) });
    expect(outputs[FEED_STACK_OUTPUTS.serviceName].Value).toEqual({
      'Fn::GetAtt': [logicalIdOf(connector.service), 'Name'],
    });
  });

  it('passes cdk-nag, each acknowledgement with its reason', () => {
    expect(nagFindingsOf(stack)).toEqual([]);
    const acknowledged = acknowledgementsOf(connector).map(({ path, rule, reason }) => {
      expect(reason.length).toBeGreaterThan(40);
      return `${path.replace(`${STACK_NAME}/FeedConnector/`, '')} ${rule}`;
    });
    expect(acknowledged.sort()).toEqual(
      [
        'Vpc AwsSolutions-VPC7',
        'Cluster AwsSolutions-ECS4',
        'Secret AwsSolutions-SMG4',
        'TaskDefinition AwsSolutions-ECS2',
        'TaskDefinition/ExecutionRole AwsSolutions-IAM5[Resource::*]',
      ].sort(),
    );
  });
});

describe('FeedConnector with an existing secret, another URL, no task (-c feedSecretName, feedUrl, feedTasks=0)', () => {
  const { stack, template } = synthServiceStack({
    [FEED_CONTEXT.provider]: 'polygon',
    [FEED_CONTEXT.secretName]: 'market-data/polygon',
    [FEED_CONTEXT.url]: 'wss://delayed.polygon.io/stocks',
    [FEED_CONTEXT.tasks]: '0',
  });
  const connector = stack.feedConnector;
  if (!connector) throw new Error('no feed connector with -c feed=polygon');
  const environment = resourceOf(template, logicalIdOf(connector.taskDefinition)).Properties
    .ContainerDefinitions[0].Environment as { Name: string; Value: unknown }[];
  const secretArnParts = [
    'arn:',
    { Ref: 'AWS::Partition' },
    ':secretsmanager:',
    { Ref: 'AWS::Region' },
    ':',
    { Ref: 'AWS::AccountId' },
    ':secret:market-data/polygon',
  ];
  const secretArn = { 'Fn::Join': ['', secretArnParts] };

  it('creates no secret and reads the named one, the role allowed that secret’s versions only', () => {
    expect(resourcesOfType(template, 'AWS::SecretsManager::Secret')).toEqual([]);
    expect(environment).toContainEqual({ Name: FEED_ENV.secretArn, Value: secretArn });
    const statements = policyStatementsOfRole(template, logicalIdOf(connector.taskRole));
    expect(statements[1]).toEqual({
      Action: 'secretsmanager:GetSecretValue',
      Effect: 'Allow',
      Resource: {
        'Fn::Join': ['', [...secretArnParts.slice(0, -1), `${secretArnParts.at(-1) as string}-??????`]],
      },
    });
  });

  it('passes the provider and the URL, and runs no task until deployed without feedTasks=0', () => {
    expect(environment).toContainEqual({ Name: FEED_ENV.provider, Value: 'polygon' });
    expect(environment).toContainEqual({ Name: FEED_ENV.url, Value: 'wss://delayed.polygon.io/stocks' });
    expect(resourceOf(template, logicalIdOf(connector.service)).Properties.DesiredCount).toBe(0);
    expect(nagFindingsOf(stack)).toEqual([]);
  });
});

describe('cdk synth -c feed=alpaca (bin/app.ts)', () => {
  const synth = synthWithoutDocker({ [FEED_CONTEXT.provider]: 'alpaca' });
  const { result, images } = synth;
  const staged = join(synth.outdir, images[0]?.source.directory ?? 'missing');
  afterAll(synth.cleanUp);

  it('synthesizes with cdk-nag and never runs docker', () => {
    expect(result.stderr).not.toMatch(/AwsSolutions/);
    expect(result.status).toBe(0);
    expect(synth.dockerRan()).toBe(false);
  });

  it('stages the image’s build context and Dockerfile for `cdk deploy` to build, for ARM64', () => {
    expect(images).toHaveLength(1);
    expect(images[0]?.source).toMatchObject({
      dockerFile: CONTAINERS_DOCKERFILE,
      platform: 'linux/arm64',
    });
    expect(existsSync(join(staged, FEED_CONNECTOR_ENTRY))).toBe(true);
  });

  it('stages every file the Dockerfile copies from the context, and none of node_modules, tests or data', () => {
    const dockerfile = readFileSync(join(staged, CONTAINERS_DOCKERFILE), 'utf8');
    const sources = dockerfile
      .split('\n')
      .filter((line) => line.startsWith('COPY ') && !line.includes('--from'))
      .flatMap((line) => line.split(/\s+/).slice(1, -1));
    expect(sources.length).toBeGreaterThan(5);
    for (const source of sources) expect(existsSync(join(staged, source)), source).toBe(true);
    expect(readdirSync(staged).sort()).toEqual(
      // The CDK stages .dockerignore itself (docker reads it again at the build).
      [
        '.dockerignore',
        'data',
        'functions',
        'lib',
        'package-lock.json',
        'package.json',
        'scripts',
        'tsconfig.json',
      ].sort(),
    );
    expect(readdirSync(join(staged, 'data'))).toEqual(['universe.csv']);
  });
});
