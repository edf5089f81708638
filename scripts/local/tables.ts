import {
  type AttributeDefinition,
  CreateTableCommand,
  type CreateTableCommandInput,
  type DynamoDBClient,
  ListTablesCommand,
} from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { type KeyAttribute, TABLE_IDS, TABLES, type TableDefinition, type TableId } from '#contracts/tables';
import type { TableContext } from '#runtime/ports/context';

/**
 * The local stack's tables, made from the same definitions as the CDK's. dynalite has no Streams (the
 * local stack captures writes itself, docs/architecture.md#local-stack-the-same-code-on-embedded-parts) and
 * no TTL, so those settings are not sent.
 */
export function localTableName(id: TableId): string {
  return id;
}

/** One stack's tables as functions/runtime/ports/ builds ports on them: `documents` and the local names. */
export function localTables(documents: DynamoDBDocumentClient): TableContext {
  return { documents: () => documents, tableName: localTableName };
}

function keySchema(partitionKey: KeyAttribute, sortKey?: KeyAttribute) {
  return [
    { AttributeName: partitionKey.name, KeyType: 'HASH' as const },
    ...(sortKey ? [{ AttributeName: sortKey.name, KeyType: 'RANGE' as const }] : []),
  ];
}

export function createTableInput(id: TableId, definition: TableDefinition): CreateTableCommandInput {
  const attributes = new Map<string, AttributeDefinition>();
  const addAttribute = (attribute?: KeyAttribute) => {
    if (attribute)
      attributes.set(attribute.name, { AttributeName: attribute.name, AttributeType: attribute.type });
  };
  addAttribute(definition.partitionKey);
  addAttribute(definition.sortKey);
  for (const index of definition.indexes ?? []) {
    addAttribute(index.partitionKey);
    addAttribute(index.sortKey);
  }
  const indexes = definition.indexes ?? [];
  return {
    TableName: localTableName(id),
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...attributes.values()],
    KeySchema: keySchema(definition.partitionKey, definition.sortKey),
    ...(indexes.length > 0
      ? {
          GlobalSecondaryIndexes: indexes.map((index) => ({
            IndexName: index.name,
            KeySchema: keySchema(index.partitionKey, index.sortKey),
            Projection: { ProjectionType: 'ALL' },
          })),
        }
      : {}),
  };
}

/** Creates every table that does not exist yet; returns the ids it created. */
export async function ensureTables(client: DynamoDBClient): Promise<TableId[]> {
  const existing = new Set<string>();
  let startTable: string | undefined;
  do {
    const page = await client.send(new ListTablesCommand({ ExclusiveStartTableName: startTable }));
    for (const name of page.TableNames ?? []) existing.add(name);
    startTable = page.LastEvaluatedTableName;
  } while (startTable);

  const missing = TABLE_IDS.filter((id) => !existing.has(localTableName(id)));
  for (const id of missing) await client.send(new CreateTableCommand(createTableInput(id, TABLES[id])));
  return missing;
}

/** Every item of a local stack's table (benchmarks and tests that check what was stored). */
export async function scanLocalTable(
  documents: DynamoDBDocumentClient,
  id: TableId,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documents.send(
      new ScanCommand({ TableName: localTableName(id), ExclusiveStartKey: startKey }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}
