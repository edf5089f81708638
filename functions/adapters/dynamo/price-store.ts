import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { PriceStore } from '#domain/market-data/ports';
import type { SymbolPrice } from '#domain/market-data/prices';
import { batchGetAll, batchPutAll } from './batch.ts';

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

  async putMany(prices: readonly SymbolPrice[]): Promise<void> {
    await batchPutAll(this.client, this.tableName, prices);
  }
}
