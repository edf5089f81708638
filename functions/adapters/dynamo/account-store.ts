import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Account } from '#domain/access/accounts';
import type { AccountStore } from '#domain/access/ports';
import { batchGetAll } from './batch.ts';

function toAccount(item: Record<string, unknown>): Account {
  const { accountId, entitlement, updatedAt } = item as unknown as Account;
  return { accountId, entitlement, updatedAt };
}

export class DynamoAccountStore implements AccountStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(accountId: string): Promise<Account | undefined> {
    const output = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { accountId } }));
    return output.Item ? toAccount(output.Item) : undefined;
  }

  async getMany(accountIds: readonly string[]): Promise<Account[]> {
    const items = await batchGetAll(
      this.client,
      this.tableName,
      accountIds.map((accountId) => ({ accountId })),
    );
    return items.map(toAccount);
  }

  async put(account: Account): Promise<void> {
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: { ...account } }));
  }
}
