import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Account } from '#domain/access/accounts';
import type { AccountStore } from '#domain/access/ports';

export class DynamoAccountStore implements AccountStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(accountId: string): Promise<Account | undefined> {
    const output = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { accountId } }));
    if (!output.Item) return undefined;
    const { entitlement, updatedAt } = output.Item as Account;
    return { accountId, entitlement, updatedAt };
  }

  async put(account: Account): Promise<void> {
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: { ...account } }));
  }
}
