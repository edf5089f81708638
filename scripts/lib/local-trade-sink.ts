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
      await this.post(JSON.stringify({ records }));
    }
  }

  /** One request; a full stream's 503 (docs/replay.md#back-pressure) is waited out and sent again. */
  private async post(body: string): Promise<void> {
    for (;;) {
      const response = await fetch(`${this.origin}/_local/records`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body,
      });
      if (response.ok) return;
      const text = await response.text();
      if (response.status !== 503)
        throw new Error(`the local stack refused the records: ${response.status} ${text}`);
      const seconds = Number(response.headers.get('Retry-After') ?? '1');
      await new Promise((resolve) => setTimeout(resolve, (Number.isFinite(seconds) ? seconds : 1) * 1000));
    }
  }
}
