import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import pLimit from 'p-limit';
import type { PriceStore } from '#domain/market-data/ports';
import type { SymbolPrice } from '#domain/market-data/prices';
import { batchGetAll } from './batch.ts';

/** Conditional puts in flight at once (a batch write cannot carry a condition). */
const PUT_CONCURRENCY = 16;

function toSymbolPrice(item: Record<string, unknown>): SymbolPrice {
  const { symbol, price, volume, timestamp, tradeId } = item as unknown as SymbolPrice;
  return { symbol, price, volume, timestamp, tradeId };
}

export class DynamoPriceStore implements PriceStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async getMany(symbols: readonly string[]): Promise<SymbolPrice[]> {
    const items = await batchGetAll(
      this.client,
      this.tableName,
      symbols.map((symbol) => ({ symbol })),
    );
    return items.map(toSymbolPrice);
  }

  /** One conditional put per price: it lands unless the stored price is of a later trade. */
  async putMany(prices: readonly SymbolPrice[]): Promise<void> {
    const limit = pLimit(PUT_CONCURRENCY);
    await Promise.all(prices.map((price) => limit(() => this.putUnlessNewer(price))));
  }

  /** One conditional put: it lands only while the stored price is of one of the amended trades. */
  async restate(price: SymbolPrice, replaces: readonly string[]): Promise<void> {
    if (replaces.length === 0) return;
    const names = replaces.map((_, index) => `:replaced${index}`);
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: price,
          ConditionExpression: `#tradeId IN (${names.join(', ')})`,
          ExpressionAttributeNames: { '#tradeId': 'tradeId' },
          ExpressionAttributeValues: Object.fromEntries(names.map((name, index) => [name, replaces[index]])),
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  private async putUnlessNewer(price: SymbolPrice): Promise<void> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: price,
          ConditionExpression: 'attribute_not_exists(#timestamp) OR #timestamp <= :timestamp',
          ExpressionAttributeNames: { '#timestamp': 'timestamp' },
          ExpressionAttributeValues: { ':timestamp': price.timestamp },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
}
