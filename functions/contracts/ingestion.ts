/**
 * How the ingest Lambda takes trades off the stream, on AWS (the event source mapping) and in the local
 * stack (its stream stand-in). The work of a batch grows with the symbols in it, not with its trades
 * (one ledger and state write per changed symbol), so batches are as large as Lambda allows.
 */
export const INGEST_BATCH = {
  /** Records per batch: Lambda's maximum for Kinesis. */
  size: 10_000,
  /** Seconds Lambda waits to fill a batch: a trade reaches candles and quotes within about this. */
  windowSeconds: 1,
} as const;
