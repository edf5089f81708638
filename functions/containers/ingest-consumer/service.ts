import type { TradeWindow, WindowResult } from '#handlers/ingest/window-event';
import type { ShardCheckpoints, ShardRecord } from '#use-cases/ingest-windows';
import { WindowHost } from './window-host.ts';

/** The consumer's lease, as the service uses it (functions/use-cases/consumer-lease.ts). */
export interface LeaseHolder {
  /** Waits until this task holds the lease (a standby waits here); the shards' stored positions. */
  acquire(signal: AbortSignal): Promise<ReadonlyMap<string, string>>;
  /** Settles once the lease, held, is lost: another task took it, or it could not be renewed in time. */
  readonly lost: Promise<unknown>;
  /** Where the windows save the shards' positions: only while the lease is held. */
  checkpoints(): ShardCheckpoints;
  /** Stops renewing and hands the lease over at once. */
  release(): Promise<void>;
}

/** Every shard of the stream being read (functions/adapters/kinesis/shard-reader.ts). */
export interface ShardReading {
  /** Reads until stop(); settles once the deliveries in flight have. */
  run(): Promise<void>;
  stop(): void;
  /** How far the furthest-behind shard's reading trails the stream, in ms. */
  behindMs(): number;
}

export interface ConsumerLog {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}

export interface IngestConsumerParts {
  readonly lease: LeaseHolder;
  /** Reads every shard after its position, handing each shard's records over as they come. */
  readonly readShards: (
    positions: ReadonlyMap<string, string>,
    deliver: (records: ShardRecord[]) => Promise<void>,
  ) => ShardReading;
  /** The window handler (functions/handlers/ingest/windows.ts), saving positions to `checkpoints`. */
  readonly windowHandler: (checkpoints: ShardCheckpoints) => (window: TradeWindow) => Promise<WindowResult>;
  readonly metrics: { behind(ms: number): void; leaseTaken(): void };
  readonly log: ConsumerLog;
  /**
   * How often the reading's lag is reported (default 30 s, so every minute of the lag alarm has a point): a
   * heartbeat too, as the alarm on it missing means nobody reads.
   */
  readonly reportEveryMs?: number;
  /** Real milliseconds between windows (INGEST_WINDOWS.windowMs). */
  readonly windowMs?: number;
}

/**
 * How the service's run ended: asked to stop, or its reading ended on its own (both: everything read committed,
 * the lease handed over), or the lease lost (nothing more committed).
 */
export type ConsumerExit = 'stopped' | 'reading-ended' | 'lease-lost';

/**
 * The windowed ingest consumer as a service (docs/adr/0026-long-running-ingest-consumer.md): the process of
 * functions/containers/ingest-consumer.ts, one task of which holds the lease while another stands by.
 *
 * - Standing by: it waits for the lease. Once it holds it, it reads every shard after the positions the
 *   lease holds, and its windows fold, post and commit as the local stack's do (the same WindowHost).
 * - Asked to stop (SIGTERM: a deployment, a scale-in): it stops reading, runs a last window that commits
 *   everything folded and saves the positions, then hands the lease over, so the standby starts reading at
 *   once where it stopped.
 * - The reading ended on its own (it could not hand records over): as asked to stop, and the process ends
 *   with a failure, so ECS starts it again.
 * - The lease lost (another task took it): it stops reading and commits nothing more. What it folded and did
 *   not commit is behind the saved positions, so the new holder reads it again (counted `redelivered` where
 *   it was committed meanwhile). The process then ends and is started again, as a standby.
 */
export class IngestConsumerService {
  private readonly stopping = new AbortController();
  private readonly stopped: Promise<void>;

  constructor(private readonly parts: IngestConsumerParts) {
    this.stopped = new Promise((resolve) =>
      this.stopping.signal.addEventListener('abort', () => resolve(), { once: true }),
    );
  }

  async run(): Promise<ConsumerExit> {
    const { lease, log } = this.parts;
    let positions: ReadonlyMap<string, string>;
    try {
      positions = await lease.acquire(this.stopping.signal);
    } catch (error) {
      if (this.stopping.signal.aborted) return 'stopped';
      throw error;
    }
    this.parts.metrics.leaseTaken();
    log.info('took the lease: reading every shard', { positions: Object.fromEntries(positions) });

    const host = new WindowHost(this.parts.windowHandler(lease.checkpoints()), {
      ...(this.parts.windowMs === undefined ? {} : { windowMs: this.parts.windowMs }),
      log: (line) => log.warn(line),
    });
    const reading = this.parts.readShards(positions, (records) => host.offer(records));
    const report = setInterval(
      () => this.parts.metrics.behind(reading.behindMs()),
      this.parts.reportEveryMs ?? 30_000,
    );
    host.start();
    const read = reading.run();
    const exit = await Promise.race([
      this.stopped.then((): ConsumerExit => 'stopped'),
      lease.lost.then((): ConsumerExit => 'lease-lost'),
      // The reader ends on its own only when it cannot go on (a delivery failed): holding the lease without
      // reading would stall every shard, so the service stops and a standby takes over.
      read.then(
        (): ConsumerExit => 'reading-ended',
        (): ConsumerExit => 'reading-ended',
      ),
    ]);
    clearInterval(report);
    if (exit === 'lease-lost') host.halt();
    reading.stop();
    await read.catch((error: unknown) => log.warn('the shard reader failed', { error: String(error) }));
    if (exit === 'lease-lost') {
      log.warn('lost the lease: stopped reading, committing nothing more');
      return exit;
    }
    await host.stop();
    await lease.release();
    log.info('stopped: everything read is committed, the lease handed over', { exit });
    return exit;
  }

  /** Asks the service to stop: `run()` settles once what it read is committed and the lease handed over. */
  stop(): void {
    this.stopping.abort();
  }
}
