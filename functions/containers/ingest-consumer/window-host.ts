import { INGEST_WINDOWS } from '#contracts/ingestion';
import { type TradeWindow, WindowNotTaken, type WindowResult } from '#handlers/ingest/window-event';
import type { ShardRecord } from '#use-cases/ingest-windows';

export interface WindowHostOptions {
  /** Real milliseconds between the starts of two windows (INGEST_WINDOWS.windowMs). */
  readonly windowMs?: number;
  /** Records held for the next window before a delivery waits (INGEST_WINDOWS.heldRecordsMax). */
  readonly capacity?: number;
  /** The most records a window takes (INGEST_WINDOWS.recordsPerWindow). */
  readonly recordsPerWindow?: number;
  readonly log?: (line: string) => void;
}

/**
 * The host of the windowed ingest consumer (docs/adr/0026-long-running-ingest-consumer.md): the shards' readers
 * hand it their records (`offer`), and the records of every shard since the window before go to the window
 * handler (functions/handlers/ingest/windows.ts) as one window. On AWS the readers are the shards'
 * subscriptions (functions/containers/ingest-consumer/service.ts); locally, the local trade stream's shards
 * (scripts/local/windowed-ingest.ts).
 *
 * Windows run one at a time, in order, and take everything held. A symbol is taken by a window at most once
 * every `windowMs` (the rate that bounds a symbol's quotes to one per window; a record's partition key is its
 * symbol): records of symbols no window took within `windowMs` are taken at once, and a record of a symbol
 * taken sooner waits, with whatever is held by then, until `windowMs` after that symbol was taken. So a trade
 * of a quiet symbol never waits for a window, and a busy symbol's waits at most one. A window takes at most
 * `recordsPerWindow` records, the oldest; while as many more are held (a backlog), the next starts at once,
 * and a symbol may then be quoted more often than once a `windowMs`. While nothing is held and the consumer
 * has nothing left to commit, no window runs. More than `capacity` records held makes the next
 * delivery wait (back-pressure: a reader reads its shard no further meanwhile).
 */
export class WindowHost {
  private held: ShardRecord[] = [];
  private readonly waitingForRoom: (() => void)[] = [];
  /** The windows run so far, one after the other. */
  private windows: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  /** When the timer set fires. */
  private timerDueMs = Number.POSITIVE_INFINITY;
  /** A window started by the timer runs: the next is set once it ends. */
  private inWindow = false;
  private running = false;
  private lastStartMs = Number.NEGATIVE_INFINITY;
  /** When a window last took each symbol (a record's partition key); older than `windowMs`, forgotten. */
  private readonly takenAtMs = new Map<string, number>();
  /** What the consumer still had to commit after its last window. */
  private backlog = 0;
  /**
   * The process's CPU time while windows ran, in µs, and the windows: an upper bound on the consumer's own
   * (whatever else the process did meanwhile counts too), for sizing its host.
   */
  readonly busy = { cpuMicros: 0, windows: 0 };
  private readonly windowMs: number;
  private readonly capacity: number;
  private readonly recordsPerWindow: number;

  constructor(
    private readonly handle: (window: TradeWindow) => Promise<WindowResult>,
    private readonly options: WindowHostOptions = {},
  ) {
    this.windowMs = options.windowMs ?? INGEST_WINDOWS.windowMs;
    this.capacity = options.capacity ?? INGEST_WINDOWS.heldRecordsMax;
    this.recordsPerWindow = options.recordsPerWindow ?? INGEST_WINDOWS.recordsPerWindow;
  }

  /** A shard's records, kept for the next window; resolves once there is room for them. */
  async offer(records: readonly ShardRecord[]): Promise<void> {
    while (this.held.length >= this.capacity) {
      await new Promise<void>((resolve) => this.waitingForRoom.push(resolve));
    }
    this.held.push(...records);
    this.schedule();
  }

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

  /** Windows of everything held now, everything folded committed after the last: what was delivered is stored. */
  async flush(): Promise<void> {
    // Bounded windows first; a window that took nothing (its consumer could not be made) ends them.
    for (let before = Number.POSITIVE_INFINITY; this.held.length > this.recordsPerWindow; ) {
      if (this.held.length >= before) break;
      before = this.held.length;
      await this.next(false);
    }
    await this.next(true);
  }

  /** Takes no more windows on time; the last one commits everything (after the readers delivered their records). */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  /**
   * Takes no more windows and commits nothing more (the consumer's lease was lost: what it holds is read again
   * by the next holder); deliveries waiting for room go on, into a host that no longer runs.
   */
  halt(): void {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.held = [];
    for (const wake of this.waitingForRoom.splice(0)) wake();
  }

  /**
   * Sets the next window's timer, when records wait or the consumer has trades to commit and no window runs:
   * sooner than the one set, when a record that needs no wait came.
   */
  private schedule(): void {
    if (!this.running || this.inWindow) return;
    if (this.held.length === 0 && this.backlog === 0) return;
    const delayMs = this.untilNextWindowMs();
    const dueMs = Date.now() + delayMs;
    if (this.timer !== undefined && this.timerDueMs <= dueMs) return;
    clearTimeout(this.timer);
    this.timerDueMs = dueMs;
    this.timer = setTimeout(() => void this.onTimer(), delayMs);
  }

  private async onTimer(): Promise<void> {
    this.timer = undefined;
    // A record of a symbol taken lately came since this was set: its time has not come yet.
    if (this.untilNextWindowMs() > 0) return this.schedule();
    this.inWindow = true;
    this.lastStartMs = Date.now();
    await this.next(false);
    this.inWindow = false;
    this.schedule();
  }

  /**
   * How long the next window waits: none for more held than a window takes (a backlog, taken at once, not a
   * window every windowMs: it would never catch up with more than recordsPerWindow records coming every
   * windowMs); for records, until every held record's symbol was last taken `windowMs` ago (none for quiet
   * symbols); for commits alone, the rest of the window since the last one started.
   */
  private untilNextWindowMs(): number {
    const nowMs = Date.now();
    if (this.held.length >= this.recordsPerWindow) return 0;
    if (this.held.length === 0) return Math.max(0, this.lastStartMs + this.windowMs - nowMs);
    let lastTakenMs = Number.NEGATIVE_INFINITY;
    for (const { partitionKey } of this.held) {
      lastTakenMs = Math.max(lastTakenMs, this.takenAtMs.get(partitionKey) ?? Number.NEGATIVE_INFINITY);
    }
    return Math.max(0, lastTakenMs + this.windowMs - nowMs);
  }

  /** Remembers when these records' symbols were taken, and forgets the symbols taken longer ago than a window. */
  private noteTaken(records: readonly ShardRecord[]): void {
    const nowMs = Date.now();
    for (const { partitionKey } of records) this.takenAtMs.set(partitionKey, nowMs);
    // Forgotten once their number passes what a window takes: a map of the symbols of about a window.
    if (this.takenAtMs.size <= 2 * this.recordsPerWindow) return;
    for (const [symbol, takenMs] of this.takenAtMs) {
      if (takenMs <= nowMs - this.windowMs) this.takenAtMs.delete(symbol);
    }
  }

  /** Runs a window of the records held (the oldest, up to recordsPerWindow), after the windows before it. */
  private next(final: boolean): Promise<void> {
    this.windows = this.windows.then(async () => {
      const records = this.held.splice(0, this.recordsPerWindow);
      this.noteTaken(records);
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
