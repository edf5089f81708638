import { type KinesisClient, PutRecordsCommand, type PutRecordsRequestEntry } from '@aws-sdk/client-kinesis';
import type { Trade } from '#domain/market-data/bars';
import type { TradeSink } from '#domain/market-data/ports';
import { encodeTradeRecord } from '#domain/market-data/trade-records';

const MAX_RECORDS_PER_CALL = 500;
const MAX_ATTEMPTS = 8;

/**
 * Puts trades on the Kinesis trades stream, partitioned by symbol so one shard keeps each symbol's order.
 * Calls are sequential, and a call's failed records are retried before anything later is sent: a symbol's
 * trades never overtake each other.
 */
export class KinesisTradeSink implements TradeSink {
  constructor(
    private readonly client: KinesisClient,
    private readonly streamName: string,
  ) {}

  async put(trades: readonly Trade[]): Promise<void> {
    for (let start = 0; start < trades.length; start += MAX_RECORDS_PER_CALL) {
      let pending: PutRecordsRequestEntry[] = trades
        .slice(start, start + MAX_RECORDS_PER_CALL)
        .map((trade) => ({
          PartitionKey: trade.symbol,
          Data: Buffer.from(encodeTradeRecord(trade)),
        }));
      for (let attempt = 1; pending.length > 0; attempt++) {
        if (attempt > MAX_ATTEMPTS) throw new Error(`PutRecords left ${pending.length} records unsent`);
        if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
        const output = await this.client.send(
          new PutRecordsCommand({ StreamName: this.streamName, Records: pending }),
        );
        const failedFrom = (output.Records ?? []).findIndex((record) => record.ErrorCode);
        // Resend from the first failure on, so nothing after it lands before it.
        pending = failedFrom === -1 ? [] : pending.slice(failedFrom);
      }
    }
  }
}
