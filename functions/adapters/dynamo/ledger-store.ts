import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { SymbolLedger } from '#domain/market-data/ledger';
import type { LedgerStore, VersionedLedger } from '#domain/market-data/ports';
import { batchGetAll } from './batch.ts';

/** The stored item is the ledger plus its version: every ledger field comes back as it was written. */
function toVersioned(item: Record<string, unknown>): VersionedLedger {
  const { version, ...ledger } = item as unknown as SymbolLedger & { version: number };
  return { version, ledger: { ...ledger, forming: ledger.forming ?? {} } };
}

/** One item per symbol, replaced whole on each batch, guarded by its version. */
export class DynamoLedgerStore implements LedgerStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(symbol: string): Promise<VersionedLedger | undefined> {
    const output = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { symbol } }));
    return output.Item ? toVersioned(output.Item) : undefined;
  }

  async getMany(symbols: readonly string[]): Promise<Map<string, VersionedLedger>> {
    const items = await batchGetAll(
      this.client,
      this.tableName,
      symbols.map((symbol) => ({ symbol })),
    );
    return new Map(items.map((item) => [item.symbol as string, toVersioned(item)]));
  }

  async put(ledger: SymbolLedger, previousVersion: number | undefined): Promise<boolean> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...ledger, version: (previousVersion ?? -1) + 1 },
          ...(previousVersion === undefined
            ? { ConditionExpression: 'attribute_not_exists(symbol)' }
            : {
                ConditionExpression: '#version = :previous',
                ExpressionAttributeNames: { '#version': 'version' },
                ExpressionAttributeValues: { ':previous': previousVersion },
              }),
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }
}
