import { Match } from 'aws-cdk-lib/assertions';
import { describe, it } from 'vitest';
import { type KeyAttribute, TABLE_IDS, TABLES, type TableDefinition } from '#contracts/tables';
import { SESSION_CAPACITY } from '../../lib/constructs/session-capacity.ts';
import { synthServiceStack } from './support/service-stack.ts';
import { logicalIdOf, templateOfResource } from './support/template.ts';

const { stack, template } = synthServiceStack();

const keySchema = (partitionKey: KeyAttribute, sortKey?: KeyAttribute) => [
  { AttributeName: partitionKey.name, KeyType: 'HASH' },
  ...(sortKey ? [{ AttributeName: sortKey.name, KeyType: 'RANGE' }] : []),
];

/** Every attribute a key schema names, table or index, with its type. */
const keyAttributes = (definition: TableDefinition): KeyAttribute[] => {
  const all = [
    definition.partitionKey,
    definition.sortKey,
    ...(definition.indexes ?? []).flatMap((index) => [index.partitionKey, index.sortKey]),
  ].filter((key): key is KeyAttribute => key !== undefined);
  return [...new Map(all.map((key) => [key.name, key])).values()];
};

describe('DataTables', () => {
  it('creates one table per entry of TABLES', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', TABLE_IDS.length);
  });

  describe.each(TABLE_IDS)('%s', (tableId) => {
    const definition: TableDefinition = TABLES[tableId];
    const table = () => templateOfResource(template, logicalIdOf(stack.data.tables[tableId]));

    it('has the contract’s key schema and attribute types', () => {
      table().hasResourceProperties('AWS::DynamoDB::Table', {
        KeySchema: keySchema(definition.partitionKey, definition.sortKey),
        AttributeDefinitions: Match.arrayEquals(
          keyAttributes(definition).map((key) => ({ AttributeName: key.name, AttributeType: key.type })),
        ),
      });
    });

    it('has the contract’s global secondary indexes, projecting all attributes', () => {
      const indexes = definition.indexes ?? [];
      table().hasResourceProperties('AWS::DynamoDB::Table', {
        GlobalSecondaryIndexes:
          indexes.length === 0
            ? Match.absent()
            : indexes.map((index) => ({
                IndexName: index.name,
                KeySchema: keySchema(index.partitionKey, index.sortKey),
                Projection: { ProjectionType: 'ALL' },
              })),
      });
    });

    it('is encrypted with the AWS-managed key and point-in-time recoverable, on demand unless scheduled', () => {
      table().hasResourceProperties('AWS::DynamoDB::Table', {
        // The session-scheduled tables are provisioned (test/infra/session-capacity.test.ts).
        BillingMode: tableId in SESSION_CAPACITY ? Match.absent() : 'PAY_PER_REQUEST',
        SSESpecification: { SSEEnabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      });
    });

    it(definition.stream ? `streams ${definition.stream}` : 'has no stream', () => {
      table().hasResourceProperties('AWS::DynamoDB::Table', {
        StreamSpecification: definition.stream ? { StreamViewType: definition.stream } : Match.absent(),
      });
    });

    it(
      definition.timeToLiveAttribute ? `expires items by ${definition.timeToLiveAttribute}` : 'has no TTL',
      () => {
        table().hasResourceProperties('AWS::DynamoDB::Table', {
          TimeToLiveSpecification: definition.timeToLiveAttribute
            ? { AttributeName: definition.timeToLiveAttribute, Enabled: true }
            : Match.absent(),
        });
      },
    );

    it('is retained when the stack is deleted or the table replaced', () => {
      table().hasResource('AWS::DynamoDB::Table', {
        DeletionPolicy: 'Retain',
        UpdateReplacePolicy: 'Retain',
      });
    });

    it('has deletion protection on', () => {
      table().hasResourceProperties('AWS::DynamoDB::Table', { DeletionProtectionEnabled: true });
    });
  });
});
