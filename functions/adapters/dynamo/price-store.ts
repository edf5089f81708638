import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { LatestPrice } from '#domain/market-data/bars';
import type { PriceStore } from '#domain/market-data/ports';
import type { SymbolPrice } from '#domain/market-data/prices';
import { batchGetAll } from './batch.ts';
import { decodeLedger } from './ledger-codec.ts';

/**
 * The latest prices, read from the ledgers table (docs/adr/0023-latest-price-in-the-ledger.md): each ledger
 * item carries its symbol's price as a plain `price` map, written with the ledger (DynamoLedgerStore). A ledger
 * stored before the price had its attribute still holds it in its encoded `data`, read there until the
 * symbol's next commit. Eventually consistent, as a latest price read always was.
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
      const price = priceOf(item);
      return price === undefined ? [] : [{ symbol: item.symbol as string, ...price }];
    });
  }
}

function priceOf(item: Record<string, unknown>): LatestPrice | undefined {
  if (item.price !== undefined) return toLatestPrice(item.price as LatestPrice);
  if (item.data instanceof Uint8Array) {
    const { price } = decodeLedger(item.data).ledger;
    return price === undefined ? undefined : toLatestPrice(price);
  }
  return undefined;
}

const toLatestPrice = ({ price, volume, timestamp, tradeId }: LatestPrice): LatestPrice => ({
  price,
  volume,
  timestamp,
  tradeId,
});
