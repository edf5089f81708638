/**
 * How the ingest Lambda takes trades off the stream, on AWS (the event source mapping) and in the local
 * stack (its stream stand-in). The work of a batch grows with the symbols in it, not with its trades
 * (one ledger and state write per changed symbol), so batches are as large as Lambda allows.
 */
export const INGEST_BATCH = {
  /** Records per batch: Lambda's maximum for Kinesis. */
  size: 10_000,
  /**
   * Seconds Lambda waits to fill a batch: none, so a batch holds what arrived while the one before ran, and a
   * quote follows its trade by about an invocation (docs/adr/0024-quotes-posted-by-the-ingest.md).
   */
  windowSeconds: 0,
} as const;

/**
 * The windowed ingest consumer (docs/adr/0026-long-running-ingest-consumer.md), what ingests the trades by
 * default: `npm start` runs it locally, `cdk deploy` on AWS (functions/contracts/ingest-consumer.ts).
 */
export const INGEST_WINDOWS = {
  /**
   * How often a window may take a symbol: a trade waits at most this long for its quote, a quiet symbol's (no
   * window took it within this) for none.
   */
  windowMs: 150,
  /**
   * How long a symbol's folded trades may wait for their commit (at once when they fire alerts): they are
   * committed by the last window before this passes, so a busy symbol's commits come about every
   * `commitIntervalMs - windowMs`.
   */
  commitIntervalMs: 1_000,
  /**
   * Records held for the next window before the shards' deliveries wait (back-pressure): the next window takes
   * them all, so this bounds the consumer's memory, not its pace.
   */
  heldRecordsMax: 50_000,
  /**
   * The most records a window takes (up to TRADES_PER_RECORD trades each): its fold runs on the consumer's one
   * thread without a pause, so a backlog (a takeover's replay, a first start from the stream's oldest record)
   * is taken a bounded window at a time, and the lease's renewals run between them. Windows follow each other
   * at once while more is held.
   */
  recordsPerWindow: 1_000,
  /**
   * A window's posts in flight: one process posts every shard's quotes. At the open's rate a window brings
   * about 870 one-quote frames; at about 20 ms a post on AWS, 512 at a time post them in two rounds (about
   * 40 ms), where 256 took four (docs/adr/0026-long-running-ingest-consumer.md). Each post worker's client has
   * sockets for all of them (functions/runtime/ports/client-connections.ts).
   */
  postConcurrency: 512,
} as const;

/**
 * How far a trade's own time may stray from the order the ingest path applies trades in
 * (docs/candles.md#late-and-early-prints).
 */
export const TRADE_TIMING = {
  /**
   * A trade stamped more than this after the service clock is refused as `future` and dead-lettered: a feed
   * glitch stamped years ahead must never become a symbol's latest price and watermark.
   */
  futureToleranceMs: 5_000,
  /**
   * A late print (older than the symbol's last applied trade) by at most this much is folded into the bars
   * still forming (high, low and volume); an older one is refused as `late`.
   */
  lateToleranceMs: 5_000,
  /**
   * The trade ids a symbol's ledger remembers from the late-print window, to tell a late print from a
   * redelivery. Past this many (a symbol trading more than 400 times a second), the window shrinks to what is
   * remembered: a late print older than that is refused as `late`, never counted twice.
   */
  rememberedTradeIds: 2_000,
} as const;

/**
 * The environment variable naming the trades dead-letter queue's URL, set by the CDK (the local stack hands its
 * ingest handler the queue itself).
 */
export const TRADE_DEAD_LETTERS_ENV = 'TRADE_DEAD_LETTER_QUEUE_URL';
