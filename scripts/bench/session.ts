/**
 * `npm run bench -- session [--minutes N] [--speed S] [--seed N] [--ingest windows|lambda]`: whether the local session
 * keeps up (docs/benchmarks.md#a-simulated-session-keeps-up). As a user runs `npm start`: a first start of the
 * local stack (on disk, in this process, with the simulator over the whole universe, the service clock at a
 * session's open at real speed) writes the history and stops; a second start on the same data, its clock a
 * minute after the first stopped running S times as fast (default 20), is watched for N simulated minutes
 * (default 60: three real minutes at 20x). It reports the ingest lag of every batch (p50, p99, max, in real and simulated time)
 * and every trade's fate: applied, folded late, refused by reason, handed back. It fails loudly when no trade
 * is applied for 30 real seconds while trades wait. The windowed consumer ingests, as deployed
 * (docs/adr/0026-long-running-ingest-consumer.md): its lag is to the commit, which waits a second by design,
 * so the wait for the window that takes a trade in is reported too. With `--ingest lambda` the ingest
 * Lambda's handler ingests, and the run records the cost model's units (scripts/cost/measured-units.json).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { formatNewYorkIso } from '#domain/calendar/time-zone';
import type { MetricPoint } from '#runtime/metric-points';
import { observeMetrics } from '../local/metric-points.ts';
import { startLocalStack } from '../local/stack.ts';
import { ingestDesignOf } from './bench-stack.ts';
import { ingestWriteUnits, ledgerCommits, tradeLogItems } from './ingest-units.ts';
import { recordMeasuredUnits } from './measured-units.ts';
import type { Bench, BenchResult } from './types.ts';

/** A Tuesday's open (09:30 New York): the first start writes the history there. */
const SESSION_OPEN = new Date('2024-11-26T14:30:00Z');
/** The watched start begins this long after the first stopped: after every trade the first start's market made. */
const RESTART_AFTER_MS = 60_000;
const STALL_MS = 30_000;
const CHECK_MS = 5_000;

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] as number;
}

/** The three slowest batches, when they were reported on the service clock (New York time) and their real lag. */
function slowest(lagsAt: SessionCounts['lagsAt'], speed: number): string {
  return [...lagsAt]
    .sort((a, b) => b.lagMs - a.lagMs)
    .slice(0, 3)
    .map(
      ({ lagMs, atMs }) =>
        `${formatNewYorkIso(new Date(atMs)).slice(11, 19)}: ${(lagMs / speed / 1000).toFixed(1)} s`,
    )
    .join(', ');
}

class SessionCounts {
  /** Each batch's lag with the service clock when it was reported: where the slowest batches fall. */
  readonly lagsAt: { readonly lagMs: number; readonly atMs: number }[] = [];
  /** Each batch's (or window's) wait: its oldest trade's time to the ingest taking it in. */
  readonly waits: number[] = [];

  constructor(private readonly nowMs: () => number) {}
  applied = 0;
  latePrints = 0;
  handedBack = 0;
  stateChanges = 0;
  readonly refused = new Map<string, number>();

  take(point: MetricPoint): void {
    if (point.id === 'ingestLag') this.lagsAt.push({ lagMs: point.value, atMs: this.nowMs() });
    else if (point.id === 'ingestWait') this.waits.push(point.value);
    else if (point.id === 'tradesApplied') this.applied += point.value;
    else if (point.id === 'latePrints') this.latePrints += point.value;
    else if (point.id === 'tradesHandedBack') this.handedBack += point.value;
    else if (point.id === 'stateChanges') this.stateChanges += point.value;
    else if (point.id === 'tradesRefused') {
      const reason = point.dimensionValue ?? '?';
      this.refused.set(reason, (this.refused.get(reason) ?? 0) + point.value);
    }
  }

  get received(): number {
    return (
      this.applied + this.latePrints + this.handedBack + [...this.refused.values()].reduce((a, b) => a + b, 0)
    );
  }
}

export const benchSession: Bench = async (options): Promise<BenchResult[]> => {
  const { values } = parseArgs({
    args: [...options],
    options: {
      minutes: { type: 'string', default: '60' },
      speed: { type: 'string', default: '20' },
      seed: { type: 'string', default: '1' },
    },
    strict: false,
  });
  const ingest = ingestDesignOf(options);
  const minutes = Number(values.minutes);
  const speed = Number(values.speed);
  const log = (line: string) => process.stderr.write(`session: ${line}\n`);
  const loadBefore = loadavg()[0] ?? 0;
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-session-'));
  const startStack = (start: Date, atSpeed: number) =>
    startLocalStack({
      port: 0,
      dynamoPort: 0,
      dataDir,
      clock: { start, speed: atSpeed },
      simulator: { seed: Number(values.seed) },
      ingest,
      logLevel: 'SILENT',
      log,
    });
  const startedAt = Date.now();
  const first = await startStack(SESSION_OPEN, 1);
  let stoppedAtMs: number;
  try {
    await (await first.simulation)?.backfilled;
  } finally {
    stoppedAtMs = first.nowMs();
    await first.stop();
  }
  const historyMs = Date.now() - startedAt;
  log(
    `history written in ${(historyMs / 1000).toFixed(0)} s; starting again, watching ${minutes} simulated minutes`,
  );
  let counts: SessionCounts | undefined;
  const stopObserving = observeMetrics((point) => counts?.take(point));
  const stack = await startStack(new Date(stoppedAtMs + RESTART_AFTER_MS), speed);
  try {
    const [commitsBefore, logBefore] = await Promise.all([ledgerCommits(stack), tradeLogItems(stack)]);
    const busyBefore = { ...(stack.windowsBusy ?? { cpuMicros: 0, windows: 0 }) };
    const callsBefore = await stack.dynamoRequestCount();
    counts = new SessionCounts(() => stack.nowMs());
    const queuedAtStart = stack.ingestPending();
    const watchMs = (minutes * 60_000) / speed;
    const watchStart = Date.now();
    let lastApplied = 0;
    let lastMoved = Date.now();
    while (Date.now() - watchStart < watchMs) {
      await wait(CHECK_MS);
      if (counts.applied > lastApplied) {
        lastApplied = counts.applied;
        lastMoved = Date.now();
      } else if (Date.now() - lastMoved > STALL_MS && stack.ingestPending() > 0) {
        throw new Error(
          `trades stopped moving: none applied for ${STALL_MS / 1000} s with ${stack.ingestPending()} pending`,
        );
      }
    }
    if (counts.applied === 0) throw new Error('no trade was applied: the session did not run');
    if (counts.applied < counts.received / 2) {
      throw new Error(
        `only ${counts.applied} of ${counts.received} trades were applied: the session measured refusals`,
      );
    }
    // The watched hour ends here, and so do its lags: the stack goes on while the stored items are read whole
    // below, and the batches slowed by those scans are the benchmark's doing, not the session's.
    const lagsAt = [...counts.lagsAt];
    const queuedAtEnd = stack.ingestPending();
    const busy = stack.windowsBusy && { ...stack.windowsBusy };
    const calls = (await stack.dynamoRequestCount()) - callsBefore;
    // The trades and state writes are counted up to the ledger commits, for the cost's ratio of the two.
    const [commitsAfter, logItems] = await Promise.all([ledgerCommits(stack), tradeLogItems(stack)]);
    const ledgerWrites = commitsAfter - commitsBefore;
    const watched = counts;
    counts = undefined;
    const units = await ingestWriteUnits(stack, {
      stateWrites: watched.stateChanges,
      ledgerWrites,
      logItems,
      logItemsBefore: logBefore.length,
    });
    // What a trading day costs is priced from this market's items (npm run cost, scripts/cost.ts), measured
    // with the ingest Lambda's handler: a commit's ratios (states per ledger write, a trade log item's size)
    // grow with the market time it spans, and at 20x a Lambda batch spans about 6 s of market, a window's
    // commit about 20 s, against at most 0.85 s on AWS. The Lambda's are the nearer, and an upper bound.
    if (ingest === 'lambda') {
      await recordMeasuredUnits('ingest', {
        ...units,
        source: `npm run bench -- session (${minutes} simulated minutes of the simulated market, ${first.seededInstruments} symbols, at ${speed}x)`,
      });
    }
    const waits = [...watched.waits].sort((a, b) => a - b);
    const lags = lagsAt.map(({ lagMs }) => lagMs).sort((a, b) => a - b);
    const real = (simulatedMs: number) => Math.round(simulatedMs / speed);
    const late = watched.refused.get('late') ?? 0;
    const refusedTotal = [...watched.refused.values()].reduce((a, b) => a + b, 0);
    return [
      {
        name: `session: ${minutes} simulated minutes at ${speed}x, ${first.seededInstruments} symbols, a second start, ingest: ${ingest}`,
        figures: {
          'history written by the first start (real s)': Math.round(historyMs / 1000),
          'load average (1 min) before / after': `${loadBefore.toFixed(2)} / ${(loadavg()[0] ?? 0).toFixed(2)}`,
          batches: lags.length,
          'ingest lag p50 / p99 / max (real ms)': `${real(percentile(lags, 0.5))} / ${real(percentile(lags, 0.99))} / ${real(lags.at(-1) ?? Number.NaN)}`,
          'ingest lag p50 / p99 (simulated ms)': `${percentile(lags, 0.5)} / ${percentile(lags, 0.99)}`,
          'ingest wait p50 / p99 (real ms)': `${real(percentile(waits, 0.5))} / ${real(percentile(waits, 0.99))}`,
          'ledger item bytes mean / largest (write units)': `${units.ledgerBytesMean} / ${units.ledgerBytesMax} (${units.writeUnitsPerLedger})`,
          'ledger writes / log items per trade applied': `${(ledgerWrites / Math.max(1, watched.applied)).toFixed(3)} / ${((logItems.length - logBefore.length) / Math.max(1, watched.applied)).toFixed(3)}`,
          'DynamoDB calls per trade applied': (calls / Math.max(1, watched.applied)).toFixed(3),
          ...(busy === undefined
            ? {}
            : {
                'windows; process CPU while they ran, per trade applied (µs, an upper bound)': `${busy.windows - busyBefore.windows}; ${((busy.cpuMicros - busyBefore.cpuMicros) / Math.max(1, watched.applied)).toFixed(0)}`,
              }),
          'trades received': watched.received,
          'trades applied': watched.applied,
          'late prints folded': watched.latePrints,
          'trades refused': refusedTotal,
          ...Object.fromEntries([...watched.refused].map(([reason, count]) => [`refused: ${reason}`, count])),
          'trades handed back': watched.handedBack,
          'refused late (share of received)': `${((100 * late) / Math.max(1, watched.received)).toFixed(3)} %`,
          'trades pending when the watch began / at its end (queued; with windows, held or folded)': `${queuedAtStart} / ${queuedAtEnd}`,
          'the slowest batches (New York time: real lag)': slowest(lagsAt, speed),
        },
      },
    ];
  } finally {
    stopObserving();
    await stack.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
};
