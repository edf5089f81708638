import type { ShardRecord } from '#use-cases/ingest-windows';

/**
 * What the windowed ingest consumer's host hands its window handler (functions/handlers/ingest/windows.ts). No
 * runtime imports: the local stack loads it before the handlers' settings are made (scripts/local/stack.ts).
 */

/** One window of the trades stream: what every shard brought since the window before. */
export interface TradeWindow {
  readonly records: readonly ShardRecord[];
  /** The consumer stops (or hands the ledgers over) after this window: everything folded is committed. */
  readonly final?: boolean;
}

/** What the host needs back from a window: whether the consumer still holds trades to commit. */
export interface WindowResult {
  /** Symbols folded and not yet committed: while there are any, the host runs windows even with no records. */
  readonly backlog: number;
}

/**
 * A window that failed before the consumer took its records (its ports could not be made): the caller keeps
 * them for the next window. Once taken, records are the consumer's, even when the window fails after.
 */
export class WindowNotTaken extends Error {
  constructor(cause: unknown) {
    super(`the window was not taken: ${String(cause)}`, { cause });
    this.name = 'WindowNotTaken';
  }
}
