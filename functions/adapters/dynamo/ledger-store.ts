import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { SymbolLedger } from '#domain/market-data/ledger';
import type { LedgerStore, VersionedLedger } from '#domain/market-data/ports';
import { batchGetAll } from './batch.ts';
import { decodeLedger, encodeLedger } from './ledger-codec.ts';

/**
 * The stored item is the symbol, the version and `data`: the ledger and its pending writes, encoded
 * (ledger-codec.ts). An item written before the encoding holds the ledger's fields as attributes and is read
 * as it was written; its next commit stores it encoded.
 */
function toVersioned<Pending>(item: Record<string, unknown>): VersionedLedger<Pending> {
  const version = item.version as number;
  if (item.data instanceof Uint8Array) {
    const { ledger, pending } = decodeLedger<Pending>(item.data);
    return { version, ledger, ...(pending === undefined ? {} : { pending }) };
  }
  const {
    version: _version,
    pending,
    ...ledger
  } = item as unknown as SymbolLedger & {
    version: number;
    pending?: Pending;
  };
  return {
    version,
    ledger: { ...ledger, forming: ledger.forming ?? {} },
    ...(pending === undefined ? {} : { pending }),
  };
}

/**
 * One item per symbol, replaced whole on each batch, guarded by its version, read strongly consistent: a
 * writer never folds onto a stale copy.
 */
export class DynamoLedgerStore<Pending = unknown> implements LedgerStore<Pending> {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(symbol: string): Promise<VersionedLedger<Pending> | undefined> {
    const output = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { symbol }, ConsistentRead: true }),
    );
    return output.Item ? toVersioned<Pending>(output.Item) : undefined;
  }

  async getMany(symbols: readonly string[]): Promise<Map<string, VersionedLedger<Pending>>> {
    const items = await batchGetAll(
      this.client,
      this.tableName,
      symbols.map((symbol) => ({ symbol })),
      { consistent: true },
    );
    return new Map(items.map((item) => [item.symbol as string, toVersioned<Pending>(item)]));
  }

  async put(ledger: SymbolLedger, previousVersion: number | undefined, pending?: Pending): Promise<boolean> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            symbol: ledger.symbol,
            version: (previousVersion ?? -1) + 1,
            data: encodeLedger({ ledger, ...(pending === undefined ? {} : { pending }) }),
          },
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
