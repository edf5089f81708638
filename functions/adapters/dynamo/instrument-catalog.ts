import { type DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { TABLES } from '#contracts/tables';
import { type Instrument, symbolContains } from '#domain/market-data/instruments';
import type { InstrumentCatalog } from '#domain/market-data/ports';
import { batchGetAll, batchPutAll } from './batch.ts';

/** Every instrument sits in the one `byListing` partition, sorted by symbol, so pages come out ordered. */
const LISTING = 'all';
const LISTING_INDEX = TABLES.instruments.indexes[0].name;
/** The listing is read in pages of at most this many items until it has `limit` matches. */
const PAGE_SIZE = 1000;

function toInstrument(item: Record<string, unknown>): Instrument {
  const { symbol, name, market, exchange, type, sector, active } = item as Instrument;
  return { symbol, name, market, exchange, type, sector, active };
}

export class DynamoInstrumentCatalog implements InstrumentCatalog {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(symbol: string): Promise<Instrument | undefined> {
    const output = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { symbol } }));
    return output.Item ? toInstrument(output.Item) : undefined;
  }

  async getMany(symbols: readonly string[]): Promise<Instrument[]> {
    const items = await batchGetAll(
      this.client,
      this.tableName,
      symbols.map((symbol) => ({ symbol })),
    );
    return items.map(toInstrument);
  }

  /** Pages the sorted listing; a search keeps only matching symbols (a key attribute cannot be filtered). */
  async list(filter: {
    readonly search?: string;
    readonly limit: number;
    readonly after?: string;
  }): Promise<Instrument[]> {
    const instruments: Instrument[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const wanted = filter.limit - instruments.length;
      const output = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: LISTING_INDEX,
          KeyConditionExpression:
            filter.after === undefined ? 'listing = :listing' : 'listing = :listing AND symbol > :after',
          ExpressionAttributeValues: {
            ':listing': LISTING,
            ...(filter.after === undefined ? {} : { ':after': filter.after }),
          },
          Limit: filter.search === undefined ? Math.min(wanted, PAGE_SIZE) : PAGE_SIZE,
          ExclusiveStartKey: startKey,
        }),
      );
      const matching = (output.Items ?? [])
        .map(toInstrument)
        .filter((instrument) => symbolContains(instrument.symbol, filter.search));
      instruments.push(...matching.slice(0, wanted));
      startKey = output.LastEvaluatedKey;
    } while (startKey && instruments.length < filter.limit);
    return instruments;
  }

  async putAll(instruments: readonly Instrument[]): Promise<void> {
    await batchPutAll(
      this.client,
      this.tableName,
      instruments.map((instrument) => ({ ...instrument, listing: LISTING })),
    );
  }
}
