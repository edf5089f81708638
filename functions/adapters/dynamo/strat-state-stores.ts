import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { SetupStore, StateStore, StoredState } from '#domain/strat/ports';
import type { SetupRow } from '#domain/strat/setups';
import type { Timeframe } from '#domain/strat/timeframes';
import { batchDeleteAll, batchGetAll, batchPutAll } from './batch.ts';

export class DynamoStateStore implements StateStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async getMany(symbols: readonly string[]): Promise<Map<string, StoredState>> {
    const items = await batchGetAll(
      this.client,
      this.tableName,
      symbols.map((symbol) => ({ symbol })),
    );
    return new Map(items.map((item) => [item.symbol as string, item as unknown as StoredState]));
  }

  async putMany(states: readonly StoredState[]): Promise<void> {
    await batchPutAll(this.client, this.tableName, states);
  }
}

/** Partition = timeframe, sort = symbol: a timeframe's rows come out in symbol order. */
export class DynamoSetupStore implements SetupStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async list(timeframe: Timeframe, limit: number): Promise<SetupRow[]> {
    const rows: SetupRow[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const output = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'timeframe = :timeframe',
          ExpressionAttributeValues: { ':timeframe': timeframe },
          Limit: limit - rows.length,
          ExclusiveStartKey: startKey,
        }),
      );
      rows.push(...((output.Items ?? []) as SetupRow[]));
      startKey = output.LastEvaluatedKey;
    } while (startKey && rows.length < limit);
    return rows;
  }

  async write(changes: {
    readonly put: readonly SetupRow[];
    readonly remove: readonly Pick<SetupRow, 'symbol' | 'timeframe'>[];
  }): Promise<void> {
    await Promise.all([
      batchPutAll(this.client, this.tableName, changes.put),
      batchDeleteAll(
        this.client,
        this.tableName,
        changes.remove.map(({ symbol, timeframe }) => ({ timeframe, symbol })),
      ),
    ]);
  }
}
