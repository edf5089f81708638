import type { Trade } from '#domain/aggregation';

/** Where trades enter the ingest path: the trades stream (Kinesis on AWS, the local stream locally). */
export interface TradeSink {
  put(trades: readonly Trade[]): Promise<void>;
}
