import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CONSUMER_SESSION_SIZE_HOURS,
  INGEST_CONSUMER_ENV,
  INGEST_CONSUMER_SERVICE_NAME,
  INGEST_CONSUMER_SIZE_SCHEDULE,
  INGEST_CONSUMER_TASKS,
  QUOTE_POST_WORKER_ENTRY,
} from '#contracts/ingest-consumer';
import { METRICS, METRICS_NAMESPACE, METRICS_NAMESPACE_ENV } from '#contracts/metrics';
import { SERVICE_NAME } from '#contracts/runtime-settings';
import { STACK_NAME } from '#contracts/stack-outputs';
import { TABLE_IDS, TABLES, type TableDefinition, type TableId } from '#contracts/tables';
import { USAGE_DELIVERY } from '#contracts/usage';
import { CALLBACK_URL_ENV } from '#contracts/websocket';
import { CONTAINERS_DOCKERFILE } from '#lib/constructs/fargate-task';
import {
  INGEST_CONSUMER_COMMAND,
  INGEST_CONSUMER_STACK_OUTPUTS,
  INGEST_CONSUMER_STOP_TIMEOUT,
} from '#lib/constructs/ingest-consumer';
import { ALARM_THRESHOLDS } from '#lib/constructs/operations';
import {
  ENHANCED_FAN_OUT_CONTEXT,
  FEED_CONTEXT,
  INGEST_CONTEXT,
  MarketDataStack,
  WEB_SOCKET_CONTEXT,
} from '#lib/market-data-stack';
import { PROJECT_ROOT } from '#lib/project-root';
import { acknowledgementsOf, nagFindingsOf } from './support/cdk-nag.ts';
import { expectNonBlockingLogs, expectPublicTaskNetwork } from './support/fargate-task.ts';
import { expectContractAccess } from './support/grants.ts';
import { synthServiceStack, testApp } from './support/service-stack.ts';
import { synthWithoutDocker } from './support/synth-without-docker.ts';
import {
  actionsOf,
  eventSourceMappingsOf,
  logicalIdOf,
  type PolicyStatementJson,
  policyStatementsOfRole,
  resourceOf,
  resourcesOfType,
  statementTargets,
} from './support/template.ts';

/** A container's environment as a map of name to value. */
function environmentOf(container: { Environment: { Name: string; Value: unknown }[] }) {
  return Object.fromEntries(container.Environment.map(({ Name, Value }) => [Name, Value]));
}

/** The actions a role's statements allow on a resource. */
function actionsOn(statements: readonly PolicyStatementJson[], logicalId: string): string[] {
  return [
    ...new Set(statements.filter((s) => statementTargets(s, logicalId)).flatMap((s) => actionsOf(s))),
  ].sort();
}

describe('IngestConsumerService left out with -c ingest=lambda', () => {
  const { stack, template } = synthServiceStack({ [INGEST_CONTEXT]: 'lambda' });

  it('adds no service, cluster, VPC, consumer alarm or output, and keeps the ingest’s event source mapping', () => {
    expect(stack.ingestConsumer).toBeUndefined();
    expect(stack.ingestion.design).toBe('lambda');
    expect(resourcesOfType(template, 'AWS::ECS::Service')).toEqual([]);
    expect(resourcesOfType(template, 'AWS::EC2::VPC')).toEqual([]);
    expect(stack.operations.consumerBehindAlarm).toBeUndefined();
    expect(stack.operations.consumerSilentAlarm).toBeUndefined();
    const outputs = Object.keys(template.toJSON().Outputs);
    for (const output of Object.values(INGEST_CONSUMER_STACK_OUTPUTS)) expect(outputs).not.toContain(output);
    expect(eventSourceMappingsOf(template, logicalIdOf(stack.ingestion.ingestFunction.lambda))).toHaveLength(
      1,
    );
  });

  it('creates the consumer’s lease table all the same (it holds nothing until the service runs)', () => {
    expect(resourceOf(template, logicalIdOf(stack.data.tables.consumerLeases)).Type).toBe(
      'AWS::DynamoDB::Table',
    );
  });
});

describe('IngestConsumerService context', () => {
  it('is deployed by default: naming -c ingest=windows changes nothing', () => {
    const byDefault = synthServiceStack();
    expect(byDefault.stack.ingestion.design).toBe('windows');
    expect(byDefault.stack.ingestConsumer).toBeDefined();
    expect(synthServiceStack({ [INGEST_CONTEXT]: 'windows' }).template.toJSON()).toEqual(
      byDefault.template.toJSON(),
    );
  });

  it.each([
    [{ [INGEST_CONTEXT]: 'kcl' }, /^CDK context ingest must be one of windows, lambda$/],
    [{ [INGEST_CONTEXT]: 'Windows' }, /^CDK context ingest must be one of windows, lambda$/],
    [
      { [INGEST_CONTEXT]: 'windows', [ENHANCED_FAN_OUT_CONTEXT]: 'false' },
      /^CDK context ingest=windows needs the enhanced fan-out consumer .*: with enhancedFanOut=false, set ingest=lambda$/,
    ],
    [
      { [ENHANCED_FAN_OUT_CONTEXT]: 'false' },
      /^CDK context ingest=windows \(the default\) needs the enhanced fan-out consumer .*: with enhancedFanOut=false, set ingest=lambda$/,
    ],
  ])('stops synthesis on %j', (context, message) => {
    expect(() => new MarketDataStack(testApp(context), STACK_NAME)).toThrow(message);
  });

  it('lets the Lambda poll the stream with -c enhancedFanOut=false -c ingest=lambda (as deploy:local)', () => {
    expect(() =>
      synthServiceStack({ [ENHANCED_FAN_OUT_CONTEXT]: 'false', [INGEST_CONTEXT]: 'lambda' }),
    ).not.toThrow();
  });
});

describe('IngestConsumerService (deployed by default)', () => {
  const { stack, template } = synthServiceStack();
  const consumer = stack.ingestConsumer;
  if (!consumer) throw new Error('no ingest consumer service in the default stack');
  const ingestion = stack.ingestion;
  const streamConsumer = ingestion.consumer;
  if (!streamConsumer) throw new Error('no enhanced fan-out consumer in the default stack');
  const streamId = logicalIdOf(ingestion.stream);
  const streamConsumerId = logicalIdOf(streamConsumer);
  const leasesId = logicalIdOf(stack.data.tables.consumerLeases);
  const queueId = logicalIdOf(ingestion.deadLetterQueue);
  const usageStreamId = logicalIdOf(stack.usage.deliveryStream);
  const taskDefinition = resourceOf(template, logicalIdOf(consumer.taskDefinition)).Properties;
  const [container, ...otherContainers] = taskDefinition.ContainerDefinitions;
  const offSessionTaskDefinition = resourceOf(
    template,
    logicalIdOf(consumer.offSessionTaskDefinition),
  ).Properties;
  const [offSessionContainer, ...otherOffSessionContainers] = offSessionTaskDefinition.ContainerDefinitions;
  const schedules = resourcesOfType(template, 'AWS::Scheduler::Schedule').map(
    ([, resource]) => resource.Properties,
  );
  const service = resourceOf(template, logicalIdOf(consumer.service)).Properties;
  const statements = policyStatementsOfRole(template, logicalIdOf(consumer.taskRole));
  const ingestFunction = resourceOf(template, logicalIdOf(ingestion.ingestFunction.lambda)).Properties;

  it('reads the stream in place of the ingest Lambda: no event source mapping reads the trades', () => {
    expect(ingestion.design).toBe('windows');
    expect(eventSourceMappingsOf(template, logicalIdOf(ingestion.ingestFunction.lambda))).toEqual([]);
    const mappings = resourcesOfType(template, 'AWS::Lambda::EventSourceMapping');
    expect(JSON.stringify(mappings)).not.toContain(streamId);
    expect(JSON.stringify(mappings)).not.toContain(streamConsumerId);
    // The enhanced fan-out consumer stays: the service subscribes through it.
    template.resourceCountIs('AWS::Kinesis::StreamConsumer', 1);
  });

  it('runs two tasks, starting new ones before stopping the old, rolled back by ECS when they keep failing', () => {
    expect(resourcesOfType(template, 'AWS::ECS::Service')).toHaveLength(1);
    expect(service).toMatchObject({
      LaunchType: 'FARGATE',
      DesiredCount: INGEST_CONSUMER_TASKS.count,
      DeploymentConfiguration: {
        MinimumHealthyPercent: 100,
        MaximumPercent: 200,
        DeploymentCircuitBreaker: { Enable: true, Rollback: true },
      },
    });
    expect(INGEST_CONSUMER_TASKS.count).toBe(2);
  });

  it('runs the consumer’s bundle from the containers’ image, on ARM64, 8 vCPU and 16 GB through the session', () => {
    expect(otherContainers).toEqual([]);
    expect(container.Essential).toBe(true);
    expect(container.Command).toEqual(['node', '--enable-source-maps', 'dist/ingest-consumer.mjs']);
    expect(container.Command).toEqual([...INGEST_CONSUMER_COMMAND]);
    expect(container.Image['Fn::Sub']).toContain(`:${consumer.image.assetHash}`);
    expect(taskDefinition).toMatchObject({
      RequiresCompatibilities: ['FARGATE'],
      RuntimePlatform: { CpuArchitecture: 'ARM64', OperatingSystemFamily: 'LINUX' },
      // The contract's size, which the cost model prices (scripts/lib/cost-model.ts).
      Cpu: String(INGEST_CONSUMER_TASKS.session.vcpu * 1024),
      Memory: String(INGEST_CONSUMER_TASKS.session.memoryGb * 1024),
    });
    expect(taskDefinition).toMatchObject({ Cpu: '8192', Memory: '16384' });
    expect(environmentOf(container)[INGEST_CONSUMER_ENV.postWorkers]).toBe('6');
    expect(container.ReadonlyRootFilesystem).toBe(true);
    // The service, as deployed, runs the session's size.
    expect(service.TaskDefinition).toEqual({ Ref: logicalIdOf(consumer.taskDefinition) });
  });

  it('has the same container at 1 vCPU and 2 GB with one post worker for the other hours', () => {
    expect(otherOffSessionContainers).toEqual([]);
    expect(offSessionTaskDefinition).toMatchObject({
      RequiresCompatibilities: ['FARGATE'],
      RuntimePlatform: { CpuArchitecture: 'ARM64', OperatingSystemFamily: 'LINUX' },
      Cpu: String(INGEST_CONSUMER_TASKS.offSession.vcpu * 1024),
      Memory: String(INGEST_CONSUMER_TASKS.offSession.memoryGb * 1024),
      TaskRoleArn: taskDefinition.TaskRoleArn,
    });
    expect(offSessionTaskDefinition).toMatchObject({ Cpu: '1024', Memory: '2048' });
    // Everything but the post workers as the session's: command, image, stop timeout, logs, environment.
    const { Environment: sessionEnvironment, ...sessionRest } = container;
    const { Environment: offSessionEnvironment, ...offSessionRest } = offSessionContainer;
    expect(offSessionRest).toEqual(sessionRest);
    expect(environmentOf(offSessionContainer)).toEqual({
      ...environmentOf(container),
      [INGEST_CONSUMER_ENV.postWorkers]: '1',
    });
    expect(sessionEnvironment).toHaveLength(offSessionEnvironment.length);
  });

  it('switches the service between the sizes on weekdays, New York time, by UpdateService alone', () => {
    const at = ({ hour, minute }: { hour: number; minute: number }) =>
      `cron(${minute} ${hour} ? * MON-FRI *)`;
    const bySize = (definition: unknown) =>
      schedules.find((schedule) =>
        JSON.stringify(schedule.Target.Input).includes(JSON.stringify(definition)),
      );
    const ecsTarget = 'arn:aws:scheduler:::aws-sdk:ecs:updateService';
    for (const [definition, from] of [
      [consumer.taskDefinition, INGEST_CONSUMER_SIZE_SCHEDULE.sessionFrom],
      [consumer.offSessionTaskDefinition, INGEST_CONSUMER_SIZE_SCHEDULE.offSessionFrom],
    ] as const) {
      const schedule = bySize({ Ref: logicalIdOf(definition) });
      if (!schedule) throw new Error(`no schedule switches to ${definition.node.path}`);
      expect(schedule).toMatchObject({
        ScheduleExpression: at(from),
        ScheduleExpressionTimezone: 'America/New_York',
        FlexibleTimeWindow: { Mode: 'OFF' },
        State: 'ENABLED',
      });
      expect(JSON.stringify(schedule.Target.Arn)).toContain(ecsTarget.replace('arn:aws', ''));
      const input = JSON.stringify(schedule.Target.Input);
      expect(input).toContain(JSON.stringify({ Ref: logicalIdOf(consumer.cluster) }));
      expect(input).toContain('"Fn::GetAtt"');
      expect(input).toContain(logicalIdOf(consumer.service));
      expect(input).toMatch(/Cluster.*Service.*TaskDefinition/);
    }
    expect(schedules).toHaveLength(2);
    expect(at(INGEST_CONSUMER_SIZE_SCHEDULE.sessionFrom)).toBe('cron(0 9 ? * MON-FRI *)');
    expect(at(INGEST_CONSUMER_SIZE_SCHEDULE.offSessionFrom)).toBe('cron(30 16 ? * MON-FRI *)');
    expect(CONSUMER_SESSION_SIZE_HOURS).toBe(7.5);
    // The schedules' role may update this service, and nothing else.
    const roles = new Set(schedules.map((schedule) => JSON.stringify(schedule.Target.RoleArn)));
    expect(roles.size).toBe(1);
    const [roleArn] = schedules.map((schedule) => schedule.Target.RoleArn);
    const roleId = roleArn['Fn::GetAtt'][0];
    const scheduleStatements = policyStatementsOfRole(template, roleId);
    expect(scheduleStatements.flatMap((statement) => actionsOf(statement))).toEqual(['ecs:UpdateService']);
    expect(
      scheduleStatements.every((statement) => statementTargets(statement, logicalIdOf(consumer.service))),
    ).toBe(true);
  });

  it('gives the process 60 s after SIGTERM to commit and hand the lease over', () => {
    expect(container.StopTimeout).toBe(60);
    expect(INGEST_CONSUMER_STOP_TIMEOUT.toSeconds()).toBe(60);
  });

  it('gives the task the contract’s names and every variable the ingest Lambda gets, with the same values', () => {
    const environment = environmentOf(container);
    const { NODE_OPTIONS: _nodeOptions, ...lambdaEnvironment } = ingestFunction.Environment.Variables;
    expect(environment).toEqual({
      ...lambdaEnvironment,
      [INGEST_CONSUMER_ENV.streamArn]: { 'Fn::GetAtt': [streamId, 'Arn'] },
      [INGEST_CONSUMER_ENV.streamConsumerArn]: { 'Fn::GetAtt': [streamConsumerId, 'ConsumerARN'] },
      [INGEST_CONSUMER_ENV.leasesTable]: { Ref: leasesId },
      [INGEST_CONSUMER_ENV.postWorkers]: String(INGEST_CONSUMER_TASKS.session.postWorkers),
      AWS_REGION: { Ref: 'AWS::Region' },
      POWERTOOLS_TRACE_ENABLED: 'false',
    });
    // What the Lambda gets, spelled out: its tables, the dead letters, @connections, usage, and metrics.
    expect(environment).toMatchObject({
      [TABLES.ledgers.envVar]: { Ref: logicalIdOf(stack.data.tables.ledgers) },
      [TABLES.subscriptions.envVar]: { Ref: logicalIdOf(stack.data.tables.subscriptions) },
      TRADE_DEAD_LETTER_QUEUE_URL: { Ref: queueId },
      [CALLBACK_URL_ENV]: expect.anything(),
      [USAGE_DELIVERY.streamEnv]: { Ref: usageStreamId },
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      POWERTOOLS_LOG_LEVEL: 'INFO',
      [METRICS_NAMESPACE_ENV]: METRICS_NAMESPACE,
    });
    expect(container.Secrets).toBeUndefined();
  });

  it('may subscribe to the shards through the consumer only, and list them on the stream, nothing more', () => {
    expect(actionsOn(statements, streamConsumerId)).toEqual(['kinesis:SubscribeToShard']);
    expect(actionsOn(statements, streamId)).toEqual(['kinesis:ListShards']);
    const kinesis = statements.filter((s) => actionsOf(s).some((action) => action.startsWith('kinesis:')));
    expect(kinesis.map(({ Action, Resource }) => ({ Action, Resource }))).toEqual([
      {
        Action: 'kinesis:ListShards',
        Resource: { 'Fn::GetAtt': [streamId, 'Arn'] },
      },
      { Action: 'kinesis:SubscribeToShard', Resource: { 'Fn::GetAtt': [streamConsumerId, 'ConsumerARN'] } },
    ]);
  });

  it('may get and update the lease item, and nothing else on the lease table', () => {
    expect(actionsOn(statements, leasesId)).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem']);
  });

  it.each(TABLE_IDS.filter((id) => id !== 'consumerLeases'))(
    'has the ingest Lambda’s access to %s and nothing more',
    (tableId: TableId) => {
      const access = stack.ingestion.tableBindings.find(({ table }) => table === tableId)?.access;
      expectContractAccess(actionsOn(statements, logicalIdOf(stack.data.tables[tableId])), access);
    },
  );

  it('may send to the trades dead-letter queue, post to the stage’s connections and put usage rows', () => {
    expect(actionsOn(statements, queueId)).toEqual(['sqs:SendMessage']);
    expect(actionsOn(statements, usageStreamId)).toEqual(['firehose:PutRecordBatch']);
    const connections = statements.filter((s) => actionsOf(s).includes('execute-api:ManageConnections'));
    expect(connections).toHaveLength(1);
    expect(JSON.stringify(connections[0]?.Resource)).toContain(
      `{"Ref":"${logicalIdOf(stack.webSocketApi.api)}"},"/live/*/@connections/*"`,
    );
  });

  it('has no other permission: every statement names one of the resources above', () => {
    const allowed = [
      streamId,
      streamConsumerId,
      leasesId,
      queueId,
      usageStreamId,
      logicalIdOf(stack.webSocketApi.api),
      ...stack.ingestion.tableBindings.map(({ table }) => logicalIdOf(stack.data.tables[table])),
    ];
    for (const statement of statements) {
      expect(statement.Effect).toBe('Allow');
      expect(
        allowed.some((id) => statementTargets(statement, id)),
        JSON.stringify(statement),
      ).toBe(true);
    }
    expect(resourceOf(template, logicalIdOf(consumer.taskRole)).Properties.ManagedPolicyArns).toBeUndefined();
  });

  it('lets only ECS tasks of this account assume the task role', () => {
    const trust = resourceOf(template, logicalIdOf(consumer.taskRole)).Properties.AssumeRolePolicyDocument;
    expect(trust.Statement).toEqual([
      expect.objectContaining({
        Principal: { Service: 'ecs-tasks.amazonaws.com' },
        Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
      }),
    ]);
  });

  it('logs to its own log group, kept 30 days, never blocking the process', () => {
    expectNonBlockingLogs(template, container, consumer.logGroup, INGEST_CONSUMER_SERVICE_NAME);
  });

  it('reaches the AWS APIs from public subnets with a public IP, no NAT gateway, HTTPS out only, nothing in', () => {
    expect(resourcesOfType(template, 'AWS::EC2::VPC')).toHaveLength(1);
    expectPublicTaskNetwork(template, service, consumer.securityGroup);
  });

  it('pages when its reading trails the stream by over a minute for 3 minutes', () => {
    const alarm = stack.operations.consumerBehindAlarm;
    if (!alarm) throw new Error('no consumer behind alarm');
    expect(resourceOf(template, logicalIdOf(alarm)).Properties).toMatchObject({
      MetricName: METRICS.consumerBehind.name,
      Namespace: METRICS_NAMESPACE,
      Dimensions: [{ Name: 'service', Value: SERVICE_NAME }],
      Statistic: 'Maximum',
      Period: 60,
      Threshold: ALARM_THRESHOLDS.consumerBehindMs,
      EvaluationPeriods: 3,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: logicalIdOf(stack.operations.topic) }],
    });
    expect(ALARM_THRESHOLDS.consumerBehindMs).toBe(60_000);
  });

  it('pages when no task reported its reading for 5 minutes, missing data counting as breaching', () => {
    const alarm = stack.operations.consumerSilentAlarm;
    if (!alarm) throw new Error('no consumer silent alarm');
    expect(resourceOf(template, logicalIdOf(alarm)).Properties).toMatchObject({
      MetricName: METRICS.consumerBehind.name,
      Namespace: METRICS_NAMESPACE,
      Dimensions: [{ Name: 'service', Value: SERVICE_NAME }],
      Statistic: 'SampleCount',
      Period: 60,
      Threshold: 1,
      EvaluationPeriods: 5,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'breaching',
      AlarmActions: [{ Ref: logicalIdOf(stack.operations.topic) }],
    });
    expect(ALARM_THRESHOLDS.consumerSilentMinutes).toBe(5);
  });

  it('has a dashboard row with how far it is behind, the lease taken and its tasks', () => {
    const [, dashboard] = resourcesOfType(template, 'AWS::CloudWatch::Dashboard')[0] ?? [];
    const body = JSON.stringify(dashboard?.Properties.DashboardBody);
    expect(body).toContain('## Ingest consumer');
    expect(body).toContain(`\\"${METRICS.consumerBehind.name}\\"`);
    expect(body).toContain(`\\"${METRICS.consumerLeaseTaken.name}\\"`);
    expect(body).toContain('\\"CPUUtilization\\"');
  });

  it('publishes the log group, the cluster and the service for the operator', () => {
    const outputs = template.toJSON().Outputs;
    expect(outputs[INGEST_CONSUMER_STACK_OUTPUTS.logGroupName].Value).toEqual({
      Ref: logicalIdOf(consumer.logGroup),
    });
    expect(outputs[INGEST_CONSUMER_STACK_OUTPUTS.clusterName].Value).toEqual({
      Ref: logicalIdOf(consumer.cluster),
    });
    expect(outputs[INGEST_CONSUMER_STACK_OUTPUTS.serviceName].Value).toEqual({
      'Fn::GetAtt': [logicalIdOf(consumer.service), 'Name'],
    });
  });

  it('keeps every stateful resource’s logical id: the mapping goes, nothing that holds data moves', () => {
    const stateful = (t: Template) =>
      ['AWS::DynamoDB::Table', 'AWS::Kinesis::Stream', 'AWS::SQS::Queue', 'AWS::S3::Bucket'].flatMap((type) =>
        resourcesOfType(t, type).map(([id]) => id),
      );
    expect(stateful(template).sort()).toEqual(stateful(synthServiceStack().template).sort());
  });

  it('passes cdk-nag, each acknowledgement with its reason', () => {
    expect(nagFindingsOf(stack)).toEqual([]);
    const acknowledged = acknowledgementsOf(consumer).map(({ path, rule, reason }) => {
      expect(reason.length).toBeGreaterThan(40);
      return `${path.replace(`${STACK_NAME}/IngestConsumerService`, '.')} ${rule}`;
    });
    const indexWildcards = acknowledged.filter((entry) => entry.endsWith('/index/*]'));
    expect(indexWildcards).toHaveLength(
      stack.ingestion.tableBindings.filter(
        ({ table }) => (TABLES[table] as TableDefinition).indexes !== undefined,
      ).length,
    );
    expect(acknowledged.filter((entry) => !entry.endsWith('/index/*]')).sort()).toEqual(
      [
        './Vpc AwsSolutions-VPC7',
        './Cluster AwsSolutions-ECS4',
        './TaskDefinition AwsSolutions-ECS2',
        './TaskDefinition/ExecutionRole AwsSolutions-IAM5[Resource::*]',
        './OffSession/TaskDefinition AwsSolutions-ECS2',
        './OffSession/TaskDefinition/ExecutionRole AwsSolutions-IAM5[Resource::*]',
        `. AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:execute-api:<AWS::Region>:<AWS::AccountId>:<${logicalIdOf(stack.webSocketApi.api)}>/live/*/@connections/*]`,
      ].sort(),
    );
  });
});

describe('IngestConsumerService with the feed connector (-c feed=alpaca)', () => {
  const { stack, template } = synthServiceStack({ [FEED_CONTEXT.provider]: 'alpaca' });
  const consumer = stack.ingestConsumer;
  const feed = stack.feedConnector;
  if (!consumer || !feed) throw new Error('no ingest consumer or feed connector');
  const alone = synthServiceStack({ [FEED_CONTEXT.provider]: 'alpaca', [INGEST_CONTEXT]: 'lambda' }).stack
    .feedConnector;
  if (!alone) throw new Error('no feed connector with -c feed=alpaca -c ingest=lambda');

  it('runs the feed connector’s image: one asset, built and pushed once', () => {
    expect(consumer.image.assetHash).toBe(feed.image.assetHash);
  });

  it('has a network of its own, leaving the feed connector’s logical ids as they are', () => {
    expect(resourcesOfType(template, 'AWS::EC2::VPC')).toHaveLength(2);
    expect(resourcesOfType(template, 'AWS::ECS::Cluster')).toHaveLength(2);
    for (const part of [
      'vpc',
      'securityGroup',
      'cluster',
      'taskRole',
      'taskDefinition',
      'service',
    ] as const) {
      expect(logicalIdOf(feed[part])).toBe(logicalIdOf(alone[part]));
    }
    expect(nagFindingsOf(stack)).toEqual([]);
  });
});

describe('IngestConsumerService without the WebSocket API (-c webSocket=false)', () => {
  const stack = new MarketDataStack(testApp({ [WEB_SOCKET_CONTEXT]: 'false' }), STACK_NAME);
  const consumer = stack.ingestConsumer;
  if (!consumer) throw new Error('no ingest consumer service');
  const template = Template.fromStack(stack);

  it('posts no quotes: no @connections URL, usage stream or quote tables, as the ingest Lambda', () => {
    const environment = environmentOf(
      resourceOf(template, logicalIdOf(consumer.taskDefinition)).Properties.ContainerDefinitions[0],
    );
    const { NODE_OPTIONS: _nodeOptions, ...lambdaEnvironment } = resourceOf(
      template,
      logicalIdOf(stack.ingestion.ingestFunction.lambda),
    ).Properties.Environment.Variables;
    expect(environment).toMatchObject(lambdaEnvironment);
    expect(environment[CALLBACK_URL_ENV]).toBeUndefined();
    expect(environment[USAGE_DELIVERY.streamEnv]).toBeUndefined();
    expect(environment[TABLES.subscriptions.envVar]).toBeUndefined();
    const statements = policyStatementsOfRole(template, logicalIdOf(consumer.taskRole));
    expect(statements.flatMap((s) => actionsOf(s)).filter((a) => /^(execute-api|firehose):/.test(a))).toEqual(
      [],
    );
    expect(nagFindingsOf(stack)).toEqual([]);
  });
});

describe('The containers’ image holds the consumer’s bundle where its command runs it', () => {
  const dockerfile = readFileSync(join(PROJECT_ROOT, CONTAINERS_DOCKERFILE), 'utf8');

  it('bundles into /out/dist with the bundle script and copies that folder to dist', () => {
    expect(dockerfile).toContain('RUN npx tsx scripts/bundle-feed-connector.ts --outdir /out/dist');
    expect(dockerfile).toContain('COPY --from=bundle /out/dist dist');
    expect(dockerfile).toContain('WORKDIR /app');
  });

  it('writes dist/ingest-consumer.mjs, its post workers’ bundle beside it, and the feed connector’s, with the image’s bundle step', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'containers-bundle-'));
    try {
      const result = spawnSync(
        join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx'),
        ['scripts/bundle-feed-connector.ts', '--outdir', join(outdir, 'dist')],
        { cwd: PROJECT_ROOT, encoding: 'utf8' },
      );
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
      const command = INGEST_CONSUMER_COMMAND.at(-1) as string;
      expect(existsSync(join(outdir, command))).toBe(true);
      // The consumer starts its workers from the file beside its own (functions/containers/ingest-consumer.ts).
      expect(existsSync(join(outdir, 'dist', `${basename(QUOTE_POST_WORKER_ENTRY, '.ts')}.mjs`))).toBe(true);
      expect(existsSync(join(outdir, 'dist', 'feed-connector.mjs'))).toBe(true);
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });
});

describe('cdk synth (bin/app.ts) with the ingest consumer it deploys by default', () => {
  const synth = synthWithoutDocker({});
  afterAll(synth.cleanUp);

  it('synthesizes with cdk-nag, never runs docker, and stages the one image for ARM64', () => {
    expect(synth.result.stderr).not.toMatch(/AwsSolutions/);
    expect(synth.result.status).toBe(0);
    expect(synth.dockerRan()).toBe(false);
    expect(synth.images.map(({ source }) => source)).toEqual([
      expect.objectContaining({ dockerFile: CONTAINERS_DOCKERFILE, platform: 'linux/arm64' }),
    ]);
  });
});
