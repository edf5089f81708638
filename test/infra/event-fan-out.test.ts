import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { METRICS_NAMESPACE, METRICS_NAMESPACE_ENV } from '#contracts/metrics';
import { SERVICE_NAME } from '#contracts/runtime-settings';
import { TABLE_IDS, TABLES, type TableBinding, type TableId } from '#contracts/tables';
import { USAGE_DELIVERY } from '#contracts/usage';
import { CALLBACK_URL_ENV, FAN_OUT, WS_STAGE } from '#contracts/websocket';
import { FAN_OUT_ITERATOR_AGE_ALARM_THRESHOLD_MS } from '#lib/constructs/event-fan-out';
import { acknowledgementsOf, nagFindingsOf, specificAcknowledgements } from './support/cdk-nag.ts';
import { describeEventSourceFailures } from './support/event-source-failures.ts';
import { allowStatementsOf, expectContractAccess } from './support/grants.ts';
import { synthServiceStack } from './support/service-stack.ts';
import {
  actionsOf,
  eventSourceMappingsOf,
  logicalIdOf,
  resourceOf,
  templateOfResource,
  webSocketStageUrlOf,
} from './support/template.ts';

const { stack, template } = synthServiceStack();
const fanOut = stack.fanOut;
const functionId = logicalIdOf(fanOut.fanOutFunction.lambda);
const tableIdOf = (table: TableId) => logicalIdOf(stack.data.tables[table]);

/** The stack's event source mappings that invoke the fan-out function. */
const fanOutMappings = () => eventSourceMappingsOf(template, functionId);

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
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
    });
  });

  it('gets its tables, every source table’s name, the @connections endpoint and the usage stream', () => {
    const tables = new Set<TableId>([...FAN_OUT.tables.map(({ table }) => table), ...FAN_OUT.sources]);
    expect(resourceOf(template, functionId).Properties.Environment.Variables).toEqual({
      NODE_OPTIONS: '--enable-source-maps',
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      POWERTOOLS_LOG_LEVEL: 'INFO',
      [METRICS_NAMESPACE_ENV]: METRICS_NAMESPACE,
      ...Object.fromEntries([...tables].map((table) => [TABLES[table].envVar, { Ref: tableIdOf(table) }])),
      [CALLBACK_URL_ENV]: webSocketStageUrlOf('https', logicalIdOf(stack.webSocketApi.api)),
      [USAGE_DELIVERY.streamEnv]: { Ref: logicalIdOf(stack.usage.deliveryStream) },
    });
  });

  it.each(TABLE_IDS)('has FAN_OUT’s access to the items of %s and nothing more', (tableId) => {
    expectContractAccess(dataActionsOn(tableId), bindings.get(tableId));
  });
});

describeEventSourceFailures({
  name: 'EventFanOut',
  template,
  consumer: fanOut.fanOutFunction,
  failures: fanOut,
  retentionHours: 24,
  iteratorAge: {
    title: 'alarms when the fan-out reads changes over 30 seconds old for three minutes',
    thresholdMs: FAN_OUT_ITERATOR_AGE_ALARM_THRESHOLD_MS,
    expectedMs: 30_000,
  },
});

describe('EventFanOut cdk-nag', () => {
  it('has no unacknowledged AwsSolutions finding', () => {
    expect(nagFindingsOf(fanOut)).toEqual([]);
  });

  it('acknowledges SQS3 on the queue and the connections grant, beyond the shared function ones', () => {
    const acknowledged = acknowledgementsOf(fanOut);
    expect(specificAcknowledgements(acknowledged).sort()).toEqual(
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
