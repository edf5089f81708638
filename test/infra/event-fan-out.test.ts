import { Validations } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { SERVICE_NAME } from '#contracts/runtime-settings';
import { TABLE_IDS, TABLES, type TableBinding, type TableId } from '#contracts/tables';
import { CALLBACK_URL_ENV, FAN_OUT, WS_STAGE } from '#contracts/websocket';
import { FAN_OUT_ITERATOR_AGE_ALARM_THRESHOLD_MS } from '#lib/constructs/event-fan-out';
import { allowStatementsOf, READ_ACTIONS, WRITE_ACTIONS } from './support/grants.ts';
import { synthServiceStack } from './support/service-stack.ts';
import {
  actionsOf,
  logicalIdOf,
  resourceOf,
  resourcesOfType,
  templateOfResource,
} from './support/template.ts';

const { stack, template } = synthServiceStack();
const fanOut = stack.fanOut;
const functionId = logicalIdOf(fanOut.fanOutFunction.lambda);
const queueId = logicalIdOf(fanOut.deadLetterQueue);
const tableIdOf = (table: TableId) => logicalIdOf(stack.data.tables[table]);

/** The stack's event source mappings that invoke the fan-out function. */
const fanOutMappings = () =>
  resourcesOfType(template, 'AWS::Lambda::EventSourceMapping').filter(
    ([, mapping]) => mapping.Properties.FunctionName?.Ref === functionId,
  );

const mappingOf = (source: TableId) => {
  const matches = fanOutMappings().filter(
    ([, mapping]) =>
      JSON.stringify(mapping.Properties.EventSourceArn) ===
      JSON.stringify({ 'Fn::GetAtt': [tableIdOf(source), 'StreamArn'] }),
  );
  expect(matches, `mappings of the ${source} stream`).toHaveLength(1);
  return (matches[0] as [string, unknown])[0];
};

/** The actions the fan-out role may take on a table's items (statements naming the table ARN, not its stream). */
const dataActionsOn = (table: TableId) => {
  const tableArn = JSON.stringify([tableIdOf(table), 'Arn']);
  const actions = allowStatementsOf(template, fanOut.fanOutFunction)
    .filter((statement) => JSON.stringify(statement.Resource).includes(tableArn))
    .flatMap((statement) => actionsOf(statement));
  return [...new Set(actions)];
};

describe('EventFanOut event source mappings', () => {
  it('reads the stream of each FAN_OUT source, and no other', () => {
    expect(
      fanOutMappings()
        .map(([, mapping]) => mapping.Properties.EventSourceArn['Fn::GetAtt'][0])
        .sort(),
    ).toEqual(FAN_OUT.sources.map(tableIdOf).sort());
  });

  describe.each(FAN_OUT.sources)('%s stream', (source) => {
    it('starts at LATEST with the FAN_OUT batch settings, bisecting and reporting item failures', () => {
      templateOfResource(template, mappingOf(source)).hasResourceProperties(
        'AWS::Lambda::EventSourceMapping',
        {
          FunctionName: { Ref: functionId },
          EventSourceArn: { 'Fn::GetAtt': [tableIdOf(source), 'StreamArn'] },
          StartingPosition: 'LATEST',
          BatchSize: FAN_OUT.batch.size,
          MaximumBatchingWindowInSeconds:
            FAN_OUT.batch.windowSeconds > 0 ? FAN_OUT.batch.windowSeconds : Match.absent(),
          BisectBatchOnFunctionError: true,
          FunctionResponseTypes: ['ReportBatchItemFailures'],
          MaximumRetryAttempts: FAN_OUT.batch.retryAttempts,
          MaximumRecordAgeInSeconds: FAN_OUT.batch.maxRecordAgeSeconds,
          ParallelizationFactor: FAN_OUT.batch.parallelizationFactor,
        },
      );
    });

    it('sends the batches it gives up on to the dead-letter queue', () => {
      expect(resourceOf(template, mappingOf(source)).Properties.DestinationConfig).toEqual({
        OnFailure: { Destination: { 'Fn::GetAtt': [queueId, 'Arn'] } },
      });
    });

    it('may read the stream’s records', () => {
      const streamArn = { 'Fn::GetAtt': [tableIdOf(source), 'StreamArn'] };
      const actions = allowStatementsOf(template, fanOut.fanOutFunction)
        .filter((statement) => JSON.stringify(statement.Resource).includes(JSON.stringify(streamArn)))
        .flatMap((statement) => actionsOf(statement));
      expect(actions).toEqual(
        expect.arrayContaining([
          'dynamodb:DescribeStream',
          'dynamodb:GetRecords',
          'dynamodb:GetShardIterator',
        ]),
      );
    });
  });
});

describe('EventFanOut function', () => {
  const bindings = new Map((FAN_OUT.tables as readonly TableBinding[]).map((b) => [b.table, b.access]));

  it('has 512 MB and 30 seconds for a batch of pushes', () => {
    templateOfResource(template, functionId).hasResourceProperties('AWS::Lambda::Function', {
      MemorySize: 512,
      Timeout: 30,
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
    });
  });

  it('gets its tables, every source table’s name and the @connections endpoint', () => {
    const tables = new Set<TableId>([...FAN_OUT.tables.map(({ table }) => table), ...FAN_OUT.sources]);
    expect(resourceOf(template, functionId).Properties.Environment.Variables).toEqual({
      NODE_OPTIONS: '--enable-source-maps',
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      POWERTOOLS_LOG_LEVEL: 'INFO',
      ...Object.fromEntries([...tables].map((table) => [TABLES[table].envVar, { Ref: tableIdOf(table) }])),
      [CALLBACK_URL_ENV]: {
        'Fn::Join': [
          '',
          [
            'https://',
            { Ref: logicalIdOf(stack.webSocketApi.api) },
            '.execute-api.',
            { Ref: 'AWS::Region' },
            '.',
            { Ref: 'AWS::URLSuffix' },
            `/${WS_STAGE}`,
          ],
        ],
      },
    });
  });

  it.each(TABLE_IDS)('has FAN_OUT’s access to the items of %s and nothing more', (tableId) => {
    const actions = dataActionsOn(tableId);
    const access = bindings.get(tableId);
    if (access === undefined) {
      expect(actions).toEqual([]);
      return;
    }
    expect(actions).toEqual(expect.arrayContaining(READ_ACTIONS));
    if (access === 'write') {
      expect(actions).toEqual(expect.arrayContaining(WRITE_ACTIONS));
    } else {
      expect(actions.filter((action) => WRITE_ACTIONS.includes(action))).toEqual([]);
    }
  });

  it('may send to the dead-letter queue but not receive, delete or purge', () => {
    const actions = allowStatementsOf(template, fanOut.fanOutFunction)
      .filter((statement) => JSON.stringify(statement.Resource).includes(`"${queueId}"`))
      .flatMap((statement) => actionsOf(statement));
    expect(actions).toContain('sqs:SendMessage');
    expect(actions.filter((action) => /^sqs:(Receive|Delete|Purge|ChangeMessage)/.test(action))).toEqual([]);
  });
});

describe('EventFanOut dead-letter queue', () => {
  it('is encrypted with SQS-managed keys and keeps messages for 14 days', () => {
    templateOfResource(template, queueId).hasResourceProperties('AWS::SQS::Queue', {
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 24 * 3600,
    });
  });

  it('refuses requests that do not use TLS', () => {
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: queueId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Effect: 'Deny',
            Principal: { AWS: '*' },
            Action: 'sqs:*',
            Resource: { 'Fn::GetAtt': [queueId, 'Arn'] },
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          },
        ]),
      },
    });
  });
});

describe('EventFanOut alarms', () => {
  it('alarms as soon as the dead-letter queue holds a message', () => {
    templateOfResource(template, logicalIdOf(fanOut.deadLetterAlarm)).hasResourceProperties(
      'AWS::CloudWatch::Alarm',
      {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }],
        Statistic: 'Maximum',
        Period: 60,
        ComparisonOperator: 'GreaterThanThreshold',
        Threshold: 0,
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
        AlarmActions: Match.absent(),
      },
    );
  });

  it('alarms when the fan-out reads changes over 30 seconds old for three minutes', () => {
    expect(FAN_OUT_ITERATOR_AGE_ALARM_THRESHOLD_MS).toBe(30_000);
    expect(FAN_OUT_ITERATOR_AGE_ALARM_THRESHOLD_MS).toBeLessThan(FAN_OUT.batch.maxRecordAgeSeconds * 1000);
    templateOfResource(template, logicalIdOf(fanOut.iteratorAgeAlarm)).hasResourceProperties(
      'AWS::CloudWatch::Alarm',
      {
        Namespace: 'AWS/Lambda',
        MetricName: 'IteratorAge',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId } }],
        Statistic: 'Maximum',
        Period: 60,
        ComparisonOperator: 'GreaterThanThreshold',
        Threshold: FAN_OUT_ITERATOR_AGE_ALARM_THRESHOLD_MS,
        EvaluationPeriods: 3,
        TreatMissingData: 'notBreaching',
        AlarmActions: Match.absent(),
      },
    );
  });
});

describe('EventFanOut cdk-nag', () => {
  it('has no unacknowledged AwsSolutions finding', () => {
    const report = new AwsSolutionsChecks(stack.node.root, { verbose: true }).validateScope(fanOut);
    const findings = report.violations.map(
      (violation) =>
        `${violation.severity} ${violation.ruleName}: ${violation.violatingResources.map((r) => r.constructPath).join(', ')}`,
    );
    expect(findings).toEqual([]);
  });

  it('acknowledges SQS3 on the queue and the connections grant, beyond the shared function ones', () => {
    const acknowledged = fanOut.node.findAll().flatMap((construct) =>
      construct.node.metadata
        .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
        .flatMap((entry) =>
          Object.entries(entry.data as Record<string, string>).map(([rule, reason]) => ({
            path: construct.node.path,
            rule: rule.replace(/^annotation::/i, ''),
            reason,
          })),
        ),
    );
    const specific = acknowledged
      .map(({ path, rule }) => `${path} ${rule}`)
      .filter((entry) => !/AwsSolutions-L1$|IAM5\[Resource::\*\]$|\/index\/\*\]$/.test(entry));
    expect(specific.sort()).toEqual(
      [
        `${fanOut.deadLetterQueue.node.path} AwsSolutions-SQS3`,
        `${fanOut.fanOutFunction.node.path} AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:execute-api:<AWS::Region>:<AWS::AccountId>:<${logicalIdOf(stack.webSocketApi.api)}>/${WS_STAGE}/*/@connections/*]`,
      ].sort(),
    );
    expect(
      acknowledged.some(
        ({ path, rule, reason }) =>
          path === fanOut.fanOutFunction.node.path &&
          rule === 'AwsSolutions-IAM5[Resource::*]' &&
          reason.includes('dynamodb:ListStreams'),
      ),
    ).toBe(true);
    for (const { reason } of acknowledged) expect(reason.length).toBeGreaterThan(40);
  });
});
