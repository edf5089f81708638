import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { TRADE_LOG_RETENTION_DAYS } from '#contracts/tables';
import type { SessionTradeLog, TradeLogEntry } from '#domain/market-data/ports';
import type { LoggedAmendment, LoggedTrade } from '#domain/market-data/trade-amendments';
import { batchPutAll } from './batch.ts';

const MS_PER_DAY = 86_400_000;
/** Ledger versions as fixed-width text, so entries sort in commit order. */
const VERSION_DIGITS = 12;

/** The stored form of an entry: parallel arrays, the times as offsets in the minute (compact: ~25 B a trade). */
interface StoredEntry {
  day: string;
  entry: string;
  /** Milliseconds after the minute's start. */
  t: number[];
  i: string[];
  p: number[];
  s: number[];
  /** Indexes of the volume-only trades. */
  v?: number[];
  /** The amendments, as JSON. */
  a?: string;
  expiresAt: number;
}

/** `AAPL#2024-11-26`: the session date is the UTC date of any instant of a regular session. */
function dayKey(symbol: string, minuteMs: number): string {
  return `${symbol}#${new Date(minuteMs).toISOString().slice(0, 10)}`;
}

const entryKey = (minuteMs: number, version: number) =>
  `${minuteMs}#${String(version).padStart(VERSION_DIGITS, '0')}`;

export function toStoredEntry(entry: TradeLogEntry): StoredEntry {
  const volumeOnly = entry.trades.flatMap((trade, index) => (trade.volumeOnly === true ? [index] : []));
  return {
    day: dayKey(entry.symbol, entry.minuteMs),
    entry: entryKey(entry.minuteMs, entry.version),
    t: entry.trades.map((trade) => trade.timestamp - entry.minuteMs),
    i: entry.trades.map((trade) => trade.tradeId),
    p: entry.trades.map((trade) => trade.price),
    s: entry.trades.map((trade) => trade.size),
    ...(volumeOnly.length > 0 ? { v: volumeOnly } : {}),
    ...(entry.amendments.length > 0 ? { a: JSON.stringify(entry.amendments) } : {}),
    expiresAt: Math.floor((entry.minuteMs + TRADE_LOG_RETENTION_DAYS * MS_PER_DAY) / 1_000),
  };
}

export function fromStoredEntry(symbol: string, item: StoredEntry): TradeLogEntry {
  const [minute = '0', version = '0'] = item.entry.split('#');
  const minuteMs = Number(minute);
  const volumeOnly = new Set(item.v ?? []);
  const trades: LoggedTrade[] = item.t.map((offset, index) => ({
    timestamp: minuteMs + offset,
    tradeId: item.i[index] as string,
    price: item.p[index] as number,
    size: item.s[index] as number,
    ...(volumeOnly.has(index) ? { volumeOnly: true } : {}),
  }));
  const amendments = item.a === undefined ? [] : (JSON.parse(item.a) as LoggedAmendment[]);
  return { symbol, minuteMs, version: Number(version), trades, amendments };
}

/**
 * The session trade log: one partition per symbol and session date, one item per minute and ledger commit.
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

  async write(entries: readonly TradeLogEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await batchPutAll(this.client, this.tableName, entries.map(toStoredEntry));
  }
}
