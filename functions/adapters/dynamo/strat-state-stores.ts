import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import pLimit from 'p-limit';
import type { SetupStore, StateStore, StoredState } from '#domain/strat/ports';
import type { SetupRow } from '#domain/strat/setups';
import { setupRowKey } from '#domain/strat/stored-states';
import type { Timeframe } from '#domain/strat/timeframes';
import { batchDeleteAll, batchGetAll, batchPutAll, lastOfEachKey } from './batch.ts';

/**
 * Conditional puts in flight at once (a batch write cannot carry a condition): a close changes the state of
 * nearly every symbol of a batch, and each round of puts waits for its slowest.
 */
const PUT_CONCURRENCY = 64;

/**
 * The condition `supersedes` (functions/domain/strat/stored-states.ts) checks, on the stored item: none, one
 * stored before versions were kept, an older ledger version, or the same version derived no later.
 */
const NEWER_STATE_CONDITION =
  'attribute_not_exists(#version) OR #version < :version OR (#version = :version AND #updated <= :updated)';

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

  async putNewer(states: readonly StoredState[]): Promise<StoredState[]> {
    const limit = pLimit(PUT_CONCURRENCY);
    const written = await Promise.all(states.map((state) => limit(() => this.putIfNewer(state))));
    return states.filter((_, index) => written[index]);
  }

  private async putIfNewer(state: StoredState): Promise<boolean> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: state,
          ConditionExpression: NEWER_STATE_CONDITION,
          ExpressionAttributeNames: { '#version': 'ledgerVersion', '#updated': 'updatedAtMs' },
          ExpressionAttributeValues: { ':version': state.ledgerVersion ?? -1, ':updated': state.updatedAtMs },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }
}

/** Partition = timeframe, sort = symbol: a timeframe's rows come out in symbol order. */
export class DynamoSetupStore implements SetupStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async list(
    timeframe: Timeframe,
    limit: number,
    from?: { readonly symbol: string; readonly inclusive: boolean },
  ): Promise<SetupRow[]> {
    const symbolCondition = from ? ` AND symbol ${from.inclusive ? '>=' : '>'} :from` : '';
    const rows: SetupRow[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const output = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: `timeframe = :timeframe${symbolCondition}`,
          ExpressionAttributeValues: { ':timeframe': timeframe, ...(from ? { ':from': from.symbol } : {}) },
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
      batchPutAll(this.client, this.tableName, lastOfEachKey(changes.put, setupRowKey)),
      batchDeleteAll(
        this.client,
        this.tableName,
        changes.remove.map(({ symbol, timeframe }) => ({ timeframe, symbol })),
      ),
    ]);
  }
}
