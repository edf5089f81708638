import { type KinesisClient, PutRecordsCommand } from '@aws-sdk/client-kinesis';
import { groupBySymbol, type StreamItem } from '#domain/market-data/bars';
import type { TradeSink } from '#domain/market-data/ports';
import { encodeTradeRecords, type TradeRecord } from '#domain/market-data/trade-records';
import { type Backoff, backoffDelayMs } from '#domain/retry/backoff';

/** Kinesis's limit of records per PutRecords call: here, of symbols per call. */
const MAX_RECORDS_PER_CALL = 500;
/** Calls in a row that leave a record unsent before the put gives up. */
const MAX_FAILED_ROUNDS = 8;
const RETRY_BACKOFF: Backoff = { baseMs: 50, capMs: Number.POSITIVE_INFINITY, jitter: 'full' };

/** Each symbol's records, its trades in order, grouped up to a record's capacity. */
function recordsBySymbol(trades: readonly StreamItem[]): Map<string, TradeRecord[]> {
  return new Map([...groupBySymbol(trades)].map(([symbol, list]) => [symbol, encodeTradeRecords(list)]));
}

/**
 * Puts trades on the Kinesis trades stream, partitioned by symbol so one shard keeps each symbol's order.
 * Each call carries at most one record per symbol (a record holds up to a hundred of its consecutive
 * trades), and a symbol's next record goes only once the one before it is in: a record a call failed is
 * sent again before anything later of its symbol, so a symbol's trades never overtake each other, retries
 * included (functions/domain/market-data/trade-records.ts).
 */
export class KinesisTradeSink implements TradeSink {
  constructor(
    private readonly client: KinesisClient,
    private readonly streamName: string,
    /** Waits between failed calls (exponential backoff with jitter); tests pass a shorter one. */
    private readonly pause: (ms: number) => Promise<void> = (ms) =>
      new Promise((resolve) => setTimeout(resolve, ms)),
  ) {}

  async put(trades: readonly StreamItem[]): Promise<void> {
    const queues = recordsBySymbol(trades);
    let failedRounds = 0;
    while (queues.size > 0) {
      const heads = [...queues].slice(0, MAX_RECORDS_PER_CALL).map(([symbol, records]) => ({
        symbol,
        record: records[0] as TradeRecord,
      }));
      const output = await this.client.send(
        new PutRecordsCommand({
          StreamName: this.streamName,
          Records: heads.map(({ record }) => ({
            PartitionKey: record.partitionKey,
            Data: Buffer.from(record.data),
          })),
        }),
      );
      let failed = 0;
      heads.forEach(({ symbol }, index) => {
        if (output.Records?.[index]?.ErrorCode) {
          failed++;
          return;
        }
        const records = queues.get(symbol) as TradeRecord[];
        records.shift();
        if (records.length === 0) queues.delete(symbol);
      });
      if (failed === 0) {
        failedRounds = 0;
        continue;
      }
      failedRounds++;
      if (failedRounds >= MAX_FAILED_ROUNDS) {
        const unsent = [...queues.values()].flat().reduce((sum, record) => sum + record.trades, 0);
        throw new Error(`PutRecords failed ${failedRounds} calls in a row; ${unsent} trades left unsent`);
      }
      await this.pause(backoffDelayMs(failedRounds, Math.random(), RETRY_BACKOFF));
    }
  }
}
