import type { KinesisStreamBatchResponse, KinesisStreamEvent } from 'aws-lambda';
import { INGEST_WINDOWS } from '#contracts/ingestion';
import { type TradeWindow, WindowNotTaken, type WindowResult } from '#handlers/ingest/window-event';
import type { ShardCheckpoints, ShardRecord } from '#use-cases/ingest-windows';
import { LOCAL_STREAM_CAPACITY } from './trade-stream.ts';

/**
 * Where the local windowed consumer's shard positions go: kept in memory, as the local stream keeps no records
 * to read again after a restart (on AWS they go to the consumer's lease table).
 */
export class LocalShardPositions implements ShardCheckpoints {
  readonly positions = new Map<string, string>();

  async save(positions: ReadonlyMap<string, string>): Promise<void> {
    for (const [shardId, sequenceNumber] of positions) this.positions.set(shardId, sequenceNumber);
  }
}

export interface LocalWindowedIngestOptions {
  /** Real milliseconds between two windows (INGEST_WINDOWS.windowMs). */
  readonly windowMs?: number;
  /** Records held for the next window before a shard's delivery waits (LOCAL_STREAM_CAPACITY). */
  readonly capacity?: number;
  readonly log?: (line: string) => void;
}

/**
 * The local host of the windowed ingest consumer (docs/adr/0026-long-running-ingest-consumer.md), in place of
 * the ingest Lambda's event source mapping (`npm start -- --ingest windows`): the local trade stream's shards
 * hand their batches to `consume`, which keeps them for the next window, and the records of every shard since
 * the window before go to the window handler (functions/handlers/ingest/windows.ts) as one window.
 *
 * Windows run one at a time, in order, and start at most once every `windowMs`: a record that finds the last
 * window started longer ago than that is taken at once, and one that comes sooner waits at most for the rest
 * of the `windowMs` (the rate that bounds a symbol's quotes to one per window). While nothing is held and the
 * consumer has nothing left to commit, no window runs. More than `capacity` records held makes a shard's
 * delivery wait (back-pressure, as the stream's own capacity does for producers).
 */
export class LocalWindowedIngest {
  private held: ShardRecord[] = [];
  private readonly waitingForRoom: (() => void)[] = [];
  /** The windows run so far, one after the other. */
  private windows: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private lastStartMs = Number.NEGATIVE_INFINITY;
  /** What the consumer still had to commit after its last window. */
  private backlog = 0;
  /**
   * The process's CPU time while windows ran, in µs, and the windows: an upper bound on the consumer's own
   * (whatever else the process did meanwhile counts too), for sizing its host.
   */
  readonly busy = { cpuMicros: 0, windows: 0 };
  private readonly windowMs: number;
  private readonly capacity: number;

  constructor(
    private readonly handle: (window: TradeWindow) => Promise<WindowResult>,
    private readonly options: LocalWindowedIngestOptions = {},
  ) {
    this.windowMs = options.windowMs ?? INGEST_WINDOWS.windowMs;
    this.capacity = options.capacity ?? LOCAL_STREAM_CAPACITY;
  }

  /** The trade stream's consumer: a shard's batch, kept for the next window (never failed back). */
  readonly consume = async (event: KinesisStreamEvent): Promise<KinesisStreamBatchResponse> => {
    while (this.held.length >= this.capacity) {
      await new Promise<void>((resolve) => this.waitingForRoom.push(resolve));
    }
    for (const { eventID, kinesis } of event.Records) {
      this.held.push({
        // Lambda's event ids are `shardId:sequenceNumber`.
        shardId: eventID.slice(0, eventID.lastIndexOf(':')),
        partitionKey: kinesis.partitionKey,
        sequenceNumber: kinesis.sequenceNumber,
        data: Buffer.from(kinesis.data, 'base64').toString('utf8'),
      });
    }
    this.schedule();
    return { batchItemFailures: [] };
  };

  /**
   * What the consumer has not committed yet: the records held for the next window, and the symbols it folded
   * but has not committed (0 only when everything delivered is stored).
   */
  get pending(): number {
    return this.held.length + this.backlog;
  }

  /** Takes windows as records come, until stop(). */
  start(): void {
    this.running = true;
    this.schedule();
  }

  /** A window of what is held now, everything folded committed after it: what was delivered is stored. */
  flush(): Promise<void> {
    return this.next(true);
  }

  /** Takes no more windows on time; the last one commits everything (after the stream delivered its records). */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  /** Sets the next window's timer, when records wait or the consumer has trades to commit, and none is set. */
  private schedule(): void {
    if (!this.running || this.timer !== undefined) return;
    if (this.held.length === 0 && this.backlog === 0) return;
    this.timer = setTimeout(
      async () => {
        this.lastStartMs = Date.now();
        await this.next(false);
        this.timer = undefined;
        this.schedule();
      },
      Math.max(0, this.lastStartMs + this.windowMs - Date.now()),
    );
  }

  /** Runs a window of the records held, after the windows before it. */
  private next(final: boolean): Promise<void> {
    this.windows = this.windows.then(async () => {
      const records = this.held;
      this.held = [];
      for (const wake of this.waitingForRoom.splice(0)) wake();
      const cpuBefore = process.cpuUsage();
      try {
        ({ backlog: this.backlog } = await this.handle({ records, final }));
      } catch (error) {
        // Records the consumer took are its own: its next window commits them (functions/use-cases/
        // ingest-windows.ts). Records it never took are held again, first.
        if (error instanceof WindowNotTaken) this.held = [...records, ...this.held];
        // It may have left trades to commit: windows go on until one says otherwise.
        this.backlog = Math.max(this.backlog, 1);
        this.options.log?.(`a window of ${records.length} records failed: ${String(error)}`);
      } finally {
        const { user, system } = process.cpuUsage(cpuBefore);
        this.busy.cpuMicros += user + system;
        this.busy.windows++;
      }
    });
    return this.windows;
  }
}
