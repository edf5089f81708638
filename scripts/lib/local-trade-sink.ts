import type { StreamItem } from '#domain/market-data/bars';
import type { TradeSink } from '#domain/market-data/ports';
import { encodeTradeRecords } from '#domain/market-data/trade-records';

const RECORDS_PER_REQUEST = 5_000;

/** Puts trades on a running local stack's trades stream (`POST /_local/records`), waiting for ingestion. */
export class LocalTradeSink implements TradeSink {
  constructor(private readonly origin: string) {}

  async put(trades: readonly StreamItem[]): Promise<void> {
    for (let start = 0; start < trades.length; start += RECORDS_PER_REQUEST) {
      const records = encodeTradeRecords(trades.slice(start, start + RECORDS_PER_REQUEST)).map(
        ({ partitionKey, data }) => ({ partitionKey, data }),
      );
      const response = await fetch(`${this.origin}/_local/records`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ records }),
      });
      if (!response.ok)
        throw new Error(`the local stack refused the records: ${response.status} ${await response.text()}`);
    }
  }
}
