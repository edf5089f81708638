import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { INGEST_BATCH, TRADE_DEAD_LETTERS_ENV } from '#contracts/ingestion';
import { METRICS_NAMESPACE, METRICS_NAMESPACE_ENV } from '#contracts/metrics';
import { INGEST } from '#contracts/routes';
import { SERVICE_NAME } from '#contracts/runtime-settings';
import { TABLE_IDS, TABLES, type TableBinding, type TableDefinition } from '#contracts/tables';
import { USAGE_DELIVERY } from '#contracts/usage';
import { CALLBACK_URL_ENV, QUOTE_PUSH } from '#contracts/websocket';
import { ITERATOR_AGE_ALARM_THRESHOLD_MS } from '#lib/constructs/trade-ingestion';
import { ENHANCED_FAN_OUT_CONTEXT, INGEST_CONTEXT } from '#lib/market-data-stack';
import { acknowledgementsOf, nagFindingsOf } from './support/cdk-nag.ts';
import { describeEventSourceFailures } from './support/event-source-failures.ts';
import {
  actionsOnResource,
  allowStatementsOf,
  expectContractAccess,
  tableActionsOf,
} from './support/grants.ts';
import { synthServiceStack } from './support/service-stack.ts';
import {
  actionsOf,
  eventSourceMappingsOf,
  logicalIdOf,
  resourceOf,
  templateOfResource,
} from './support/template.ts';

/** The ingest Lambda's mapping and grants: a stack deployed with `-c ingest=lambda`, the way back. */
const { stack, template } = synthServiceStack({ [INGEST_CONTEXT]: 'lambda' });
const ingestion = stack.ingestion;
const streamId = logicalIdOf(ingestion.stream);
const queueId = logicalIdOf(ingestion.deadLetterQueue);
const functionId = logicalIdOf(ingestion.ingestFunction.lambda);
const consumerId = logicalIdOf(
  ingestion.consumer ??
    expect.unreachable('the stack reads the trades through its consumer unless told not to'),
);
/** What the ingest binds: its own tables, and those it needs to post quotes (the stack has the WebSocket API). */
const boundTables: readonly TableBinding[] = [...INGEST.tables, ...QUOTE_PUSH.tables];

/** The stack's event source mappings that invoke the ingest function. */
const ingestMappings = () => eventSourceMappingsOf(template, functionId);

const mapping = () => {
  const [only] = ingestMappings();
  if (!only) throw new Error('no event source mapping invokes the ingest function');
  return only[1].Properties;
};

describe('TradeIngestion stream', () => {
  it('is the stack’s only Kinesis stream', () => {
    template.resourceCountIs('AWS::Kinesis::Stream', 1);
  });

  it('is on-demand, so no shard count is managed', () => {
    templateOfResource(template, streamId).hasResourceProperties('AWS::Kinesis::Stream', {
      StreamModeDetails: { StreamMode: 'ON_DEMAND' },
      ShardCount: Match.absent(),
    });
  });

  it('is encrypted with the AWS-managed aws/kinesis key, not a key of its own', () => {
    templateOfResource(template, streamId).hasResourceProperties('AWS::Kinesis::Stream', {
      StreamEncryption: { EncryptionType: 'KMS', KeyId: 'alias/aws/kinesis' },
    });
  });

  it('keeps records for 7 days, as long as the dead-letter queue keeps the messages naming them', () => {
    templateOfResource(template, streamId).hasResourceProperties('AWS::Kinesis::Stream', {
      RetentionPeriodHours: 7 * 24,
    });
  });

  it('is deleted with the stack (the tables, not the stream, hold the state)', () => {
    templateOfResource(template, streamId).hasResource('AWS::Kinesis::Stream', {
      DeletionPolicy: 'Delete',
      UpdateReplacePolicy: 'Delete',
    });
  });
});

describe('TradeIngestion event source mapping', () => {
  it('is the one mapping of the ingest function, reading the trades stream through its consumer', () => {
    expect(ingestMappings()).toHaveLength(1);
    expect(mapping().EventSourceArn).toEqual({ 'Fn::GetAtt': [consumerId, 'ConsumerARN'] });
    expect(mapping().Enabled ?? true).toBe(true);
  });

  it('is fed by an enhanced fan-out consumer of the trades stream, the stack’s only one', () => {
    template.resourceCountIs('AWS::Kinesis::StreamConsumer', 1);
    templateOfResource(template, consumerId).hasResourceProperties('AWS::Kinesis::StreamConsumer', {
      StreamARN: { 'Fn::GetAtt': [streamId, 'Arn'] },
      ConsumerName: INGEST.streamConsumerName,
    });
  });

  it('polls the stream itself, with no consumer, in a stack deployed with -c enhancedFanOut=false', () => {
    const polled = synthServiceStack({ [INGEST_CONTEXT]: 'lambda', [ENHANCED_FAN_OUT_CONTEXT]: 'false' });
    const ingestId = logicalIdOf(polled.stack.ingestion.ingestFunction.lambda);
    const [only, ...others] = eventSourceMappingsOf(polled.template, ingestId);

    polled.template.resourceCountIs('AWS::Kinesis::StreamConsumer', 0);
    expect(others).toEqual([]);
    expect(only?.[1].Properties.EventSourceArn).toEqual({
      'Fn::GetAtt': [logicalIdOf(polled.stack.ingestion.stream), 'Arn'],
    });
    expect(only?.[1].Properties.BatchSize).toBe(INGEST_BATCH.size);
  });

  it('has no batching window: it invokes as soon as records arrive', () => {
    expect(mapping().MaximumBatchingWindowInSeconds ?? 0).toBe(0);
  });

  it.each([
    { property: 'BatchSize', value: INGEST_BATCH.size },
    { property: 'MaximumBatchingWindowInSeconds', value: INGEST_BATCH.windowSeconds },
    { property: 'StartingPosition', value: 'TRIM_HORIZON' },
    { property: 'BisectBatchOnFunctionError', value: true },
    { property: 'FunctionResponseTypes', value: ['ReportBatchItemFailures'] },
    { property: 'MaximumRetryAttempts', value: 5 },
    { property: 'MaximumRecordAgeInSeconds', value: 3600 },
    { property: 'ParallelizationFactor', value: 1 },
  ])('sets $property to $value', ({ property, value }) => {
    expect(mapping()[property]).toEqual(value);
  });

  it('gives up on a record while the stream still holds it, so it can be re-read and replayed', () => {
    const retentionSeconds = resourceOf(template, streamId).Properties.RetentionPeriodHours * 3600;
    expect(mapping().MaximumRecordAgeInSeconds).toBeGreaterThan(0);
    expect(mapping().MaximumRecordAgeInSeconds).toBeLessThan(retentionSeconds);
  });
});

describe('TradeIngestion ingest function', () => {
  const bindings = new Map(boundTables.map((b) => [b.table, b.access]));

  it('has the memory and time for a full batch', () => {
    templateOfResource(template, functionId).hasResourceProperties('AWS::Lambda::Function', {
      MemorySize: 1024,
      Timeout: 60,
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
    });
  });

  it('gets exactly the environment of its tables, dead-letter queue, @connections and usage stream', () => {
    expect(resourceOf(template, functionId).Properties.Environment.Variables).toEqual({
      NODE_OPTIONS: '--enable-source-maps',
      [TRADE_DEAD_LETTERS_ENV]: { Ref: logicalIdOf(ingestion.deadLetterQueue) },
      [CALLBACK_URL_ENV]: expect.anything(),
      [USAGE_DELIVERY.streamEnv]: { Ref: logicalIdOf(stack.usage.deliveryStream) },
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      POWERTOOLS_LOG_LEVEL: 'INFO',
      [METRICS_NAMESPACE_ENV]: METRICS_NAMESPACE,
      ...Object.fromEntries(
        boundTables.map(({ table }) => [
          TABLES[table].envVar,
          { Ref: logicalIdOf(stack.data.tables[table]) },
        ]),
      ),
    });
  });

  it.each(TABLE_IDS)('has INGEST’s and QUOTE_PUSH’s access to %s and nothing more', (tableId) => {
    const actions = tableActionsOf(template, ingestion.ingestFunction, stack.data.tables).get(tableId);
    expect(actions).toBeDefined();
    expectContractAccess(actions ?? [], bindings.get(tableId));
  });

  it('may read the trades stream but not put records on it', () => {
    const actions = actionsOnResource(template, ingestion.ingestFunction, streamId);
    expect(actions).toEqual(
      expect.arrayContaining([
        'kinesis:DescribeStream',
        'kinesis:DescribeStreamSummary',
        'kinesis:GetRecords',
        'kinesis:GetShardIterator',
        'kinesis:ListShards',
      ]),
    );
    expect(actions).not.toContain('kinesis:PutRecord');
    expect(actions).not.toContain('kinesis:PutRecords');
  });

  it('may send to its dead-letter queue (refused records), and not read or delete from it', () => {
    const actions = actionsOnResource(
      template,
      ingestion.ingestFunction,
      logicalIdOf(ingestion.deadLetterQueue),
    );
    expect(actions).toContain('sqs:SendMessage');
    expect(actions).not.toContain('sqs:ReceiveMessage');
    expect(actions).not.toContain('sqs:DeleteMessage');
  });

  it('has Kinesis and SQS permissions on the trades stream, its consumer and dead-letter queue only', () => {
    const statements = allowStatementsOf(template, ingestion.ingestFunction).filter((statement) =>
      actionsOf(statement).some((action) => /^(kinesis|sqs):/.test(action)),
    );
    const allowed = [
      { 'Fn::GetAtt': [streamId, 'Arn'] },
      { 'Fn::GetAtt': [consumerId, 'ConsumerARN'] },
      { 'Fn::GetAtt': [queueId, 'Arn'] },
    ];
    expect(statements.map((statement) => statement.Resource)).toEqual(expect.arrayContaining(allowed));
    for (const statement of statements) expect(allowed).toContainEqual(statement.Resource);
  });

  it('may subscribe to the trades through its consumer', () => {
    expect(actionsOnResource(template, ingestion.ingestFunction, consumerId)).toContain(
      'kinesis:SubscribeToShard',
    );
  });

  it('may put usage rows on the usage delivery stream, one row per quote pushed', () => {
    expect(
      actionsOnResource(template, ingestion.ingestFunction, logicalIdOf(stack.usage.deliveryStream)),
    ).toEqual(expect.arrayContaining(['firehose:PutRecordBatch']));
  });
});

describeEventSourceFailures({
  name: 'TradeIngestion',
  template,
  consumer: ingestion.ingestFunction,
  failures: ingestion,
  retentionHours: 7 * 24,
  iteratorAge: {
    title: 'alarms when the ingest function reads trades over a minute old for three minutes',
    thresholdMs: ITERATOR_AGE_ALARM_THRESHOLD_MS,
    expectedMs: 60_000,
  },
});

describe('TradeIngestion cdk-nag', () => {
  it('has no unacknowledged AwsSolutions finding', () => {
    expect(nagFindingsOf(ingestion)).toEqual([]);
  });

  it('acknowledges only SQS3 on the dead-letter queue beyond the shared function ones, each with a reason', () => {
    const acknowledged = acknowledgementsOf(ingestion);
    const tablesWithIndexes = boundTables.filter(
      ({ table }) => (TABLES[table] as TableDefinition).indexes !== undefined,
    );
    const found = acknowledged.map(({ path, rule }) => `${path} ${rule}`);
    expect(found.filter((entry) => !entry.includes('/index/*]')).sort()).toEqual(
      [
        `${ingestion.deadLetterQueue.node.path} AwsSolutions-SQS3`,
        `${ingestion.ingestFunction.node.path} AwsSolutions-IAM5[Resource::*]`,
        `${ingestion.ingestFunction.node.path} AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:execute-api:<AWS::Region>:<AWS::AccountId>:<${logicalIdOf(stack.webSocketApi.api)}>/live/*/@connections/*]`,
        `${ingestion.ingestFunction.node.path} AwsSolutions-L1`,
      ].sort(),
    );
    // bindTable's index wildcards: one per bound table with indexes, and only those.
    expect(found.filter((entry) => entry.includes('/index/*]'))).toHaveLength(tablesWithIndexes.length);
    for (const { reason } of acknowledged) expect(reason.length).toBeGreaterThan(40);
  });
});
