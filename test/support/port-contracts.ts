import { setTimeout } from 'node:timers/promises';
import { CreateTableCommand, DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TABLES, type TableId } from '#contracts/tables';
import { localDocumentClient, localDynamoClient } from '../../scripts/local/dynamo.ts';
import { createTableInput, localTableName } from '../../scripts/local/tables.ts';
import { useLocalDynamo } from './local-dynamo.ts';

/**
 * Port contract tests (test/integration/port-contracts/): the same cases run over each in-memory fake of
 * test/support/fakes.ts and the DynamoDB adapter it stands for, so a fake cannot drift from its adapter.
 */

/** One implementation of a port under test: `create` gives a fresh, empty one. */
export interface Implementation<Port> {
  readonly name: string;
  readonly create: () => Promise<Port>;
}

/** What a DynamoDB adapter is built from: the file's dynalite, and fresh tables made from TABLES. */
export interface DynamoTables {
  readonly client: DynamoDBDocumentClient;
  /** A new empty table of `id`'s definition (functions/contracts/tables.ts): tests never see each other's items. */
  table(id: TableId): Promise<string>;
}

/**
 * The file's dynalite (one per file, started before its tests) and, per port, its two implementations:
 * `describe.each(implementations)('…: $name', ({ create }) => …)`. dynalite creates a table at once
 * (createTableMs 0), so each `create` gets its own tables and every case starts empty.
 */
export function usePortImplementations() {
  const dynamo = useLocalDynamo();
  let clients: { raw: DynamoDBClient; document: DynamoDBDocumentClient } | undefined;
  let tables = 0;
  const dynamoTables = (): DynamoTables => {
    const { endpoint } = dynamo();
    clients ??= { raw: localDynamoClient(endpoint), document: localDocumentClient(endpoint) };
    const { raw, document } = clients;
    return {
      client: document,
      table: async (id) => {
        tables += 1;
        const name = `${localTableName(id)}-contract-${tables}`;
        await raw.send(new CreateTableCommand({ ...createTableInput(id, TABLES[id]), TableName: name }));
        // dynalite answers CreateTable before the table is ACTIVE (a tick later, with createTableMs 0).
        while (
          (await raw.send(new DescribeTableCommand({ TableName: name }))).Table?.TableStatus !== 'ACTIVE'
        )
          await setTimeout(5);
        return name;
      },
    };
  };
  return function implementations<Port>(
    fake: () => Port,
    adapter: (tables: DynamoTables) => Promise<Port>,
  ): Implementation<Port>[] {
    return [
      { name: 'in memory', create: async () => fake() },
      { name: 'DynamoDB', create: () => adapter(dynamoTables()) },
    ];
  };
}
