import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { LatestPrice } from '#domain/market-data/bars';
import type { PriceStore } from '#domain/market-data/ports';
import type { SymbolPrice } from '#domain/market-data/prices';
import { batchGetAll } from './batch.ts';
import { latestPriceOf } from './ledger-store.ts';

/**
 * The latest prices, read from the ledgers table (docs/adr/0023-latest-price-in-the-ledger.md): each ledger
 * item carries its symbol's price as a plain `price` map, written with the ledger (DynamoLedgerStore; an item
 * from before that attribute holds it in its encoded `data`, latestPriceOf). Eventually consistent, as a
 * latest price read always was.
 */
export class DynamoPriceStore implements PriceStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly ledgersTable: string,
  ) {}

  async getMany(symbols: readonly string[]): Promise<SymbolPrice[]> {
    const items = await batchGetAll(
      this.client,
      this.ledgersTable,
      symbols.map((symbol) => ({ symbol })),
    );
    return items.flatMap((item) => {
      const price = latestPriceOf(item);
      return price === undefined ? [] : [{ symbol: item.symbol as string, ...toLatestPrice(price) }];
    });
  }
}

const toLatestPrice = ({ price, volume, timestamp, tradeId }: LatestPrice): LatestPrice => ({
  price,
  volume,
  timestamp,
  tradeId,
});
