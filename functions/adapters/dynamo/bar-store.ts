import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Bar } from '#domain/market-data/bars';
import type { BarStore, Series } from '#domain/market-data/ports';
import { batchDeleteAll, batchPutAll, lastOfEachKey } from './batch.ts';

/** A series' partition key: `AAPL#1d`. */
export function seriesKey({ symbol, interval }: Series): string {
  return `${symbol}#${interval}`;
}

function toBar(item: Record<string, unknown>): Bar {
  const { time, open, high, low, close, volume } = item as unknown as Bar;
  return { time, open, high, low, close, volume };
}

/**
 * One item per bar, sorted by bar time within its series. A range read is one Query, newest first with
 * `Limit`, so it reads only the bars it returns (5,000 bars are well under a 1 MB page).
 */
export class DynamoBarStore implements BarStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async query(series: Series, range: { fromTime?: number; toTime?: number; limit: number }): Promise<Bar[]> {
    const newestFirst: Bar[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const output = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: '#series = :series AND #time BETWEEN :from AND :to',
          ExpressionAttributeNames: { '#series': 'series', '#time': 'time' },
          ExpressionAttributeValues: {
            ':series': seriesKey(series),
            ':from': range.fromTime ?? 0,
            ':to': range.toTime ?? Number.MAX_SAFE_INTEGER,
          },
          ScanIndexForward: false,
          Limit: range.limit - newestFirst.length,
          ExclusiveStartKey: startKey,
        }),
      );
      newestFirst.push(...(output.Items ?? []).map(toBar));
      startKey = output.LastEvaluatedKey;
    } while (startKey && newestFirst.length < range.limit);
    return newestFirst.reverse();
  }

  /** A bar put twice in one call is written once, as the later one. */
  async putMany(bars: readonly (Series & { bar: Bar })[]): Promise<void> {
    await batchPutAll(
      this.client,
      this.tableName,
      lastOfEachKey(bars, (entry) => `${seriesKey(entry)}#${entry.bar.time}`).map((entry) => ({
        series: seriesKey(entry),
        ...toBar(entry.bar as unknown as Record<string, unknown>),
      })),
    );
  }

  async deleteMany(bars: readonly (Series & { time: number })[]): Promise<void> {
    if (bars.length === 0) return;
    await batchDeleteAll(
      this.client,
      this.tableName,
      bars.map((entry) => ({ series: seriesKey(entry), time: entry.time })),
    );
  }
}
