import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { TRADE_LOG_RETENTION_DAYS } from '#contracts/tables';
import type { SessionTradeLog, TradeLogEntry } from '#domain/market-data/ports';
import { type CompactLogEntry, compactLogEntry, expandLogEntry } from '#domain/market-data/trade-log';
import { batchPutAll } from './batch.ts';

const MS_PER_DAY = 86_400_000;
/** Ledger versions as fixed-width text, so entries sort in commit order. */
const VERSION_DIGITS = 12;

/** The stored item: its keys, the compact entry's arrays, and when it expires. */
type StoredEntry = { day: string; entry: string; expiresAt: number } & Omit<
  CompactLogEntry,
  'minuteMs' | 'version'
>;

/** `AAPL#2024-11-26`: the session date is the UTC date of any instant of a regular session. */
function dayKey(symbol: string, minuteMs: number): string {
  return `${symbol}#${new Date(minuteMs).toISOString().slice(0, 10)}`;
}

export function toStoredEntry(entry: TradeLogEntry): StoredEntry {
  const { minuteMs, version, ...arrays } = compactLogEntry(entry);
  return {
    day: dayKey(entry.symbol, minuteMs),
    entry: `${minuteMs}#${String(version).padStart(VERSION_DIGITS, '0')}`,
    ...arrays,
    expiresAt: Math.floor((minuteMs + TRADE_LOG_RETENTION_DAYS * MS_PER_DAY) / 1_000),
  };
}

function fromStoredEntry(symbol: string, item: StoredEntry): TradeLogEntry {
  const { day: _day, entry, expiresAt: _expiresAt, ...arrays } = item;
  const [minute = '0', version = '0'] = entry.split('#');
  return expandLogEntry(symbol, { ...arrays, minuteMs: Number(minute), version: Number(version) });
}

/**
 * The session trade log: one partition per symbol and session date, one item per minute and writing commit.
 * A minute is one Query (its entries sort together, in commit order); an entry written again (a redelivered
 * batch's recovery) overwrites itself with the same value.
 */
export class DynamoTradeLog implements SessionTradeLog {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async readMinute(symbol: string, minuteMs: number): Promise<TradeLogEntry[]> {
    const entries: TradeLogEntry[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const output = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: '#day = :day AND begins_with(#entry, :minute)',
          ExpressionAttributeNames: { '#day': 'day', '#entry': 'entry' },
          ExpressionAttributeValues: { ':day': dayKey(symbol, minuteMs), ':minute': `${minuteMs}#` },
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of output.Items ?? []) entries.push(fromStoredEntry(symbol, item as StoredEntry));
      startKey = output.LastEvaluatedKey;
    } while (startKey);
    return entries;
  }

  async nextMinute(symbol: string, afterMinuteMs: number): Promise<number | undefined> {
    const output = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        // Entry keys are `<minuteMs>#<version>`, thirteen digits for any minute of these centuries: past
        // every entry of the minute (`~` sorts after the digits) is the next minute's first.
        KeyConditionExpression: '#day = :day AND #entry > :after',
        ExpressionAttributeNames: { '#day': 'day', '#entry': 'entry' },
        ExpressionAttributeValues: { ':day': dayKey(symbol, afterMinuteMs), ':after': `${afterMinuteMs}#~` },
        ProjectionExpression: '#entry',
        ConsistentRead: true,
        Limit: 1,
      }),
    );
    const entry = output.Items?.[0]?.entry as string | undefined;
    return entry === undefined ? undefined : Number(entry.split('#')[0]);
  }

  async write(entries: readonly TradeLogEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await batchPutAll(this.client, this.tableName, entries.map(toStoredEntry));
  }
}
