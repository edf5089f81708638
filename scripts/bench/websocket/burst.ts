/**
 * A burst: one trade of each of the 50 symbols put at once, as at the open or a bar's close when every name
 * trades, until every client has every quote. Run with the connections taking their quotes one to a frame
 * and batched (docs/websocket.md#batched-quotes), alternating, on the same stack.
 */

import type { LocalStack } from '../../local/stack.ts';
import { lagSummary } from '../harness.ts';
import type { BenchResult } from '../types.ts';
import { type ClientHost, integrityFigures } from './client-host.ts';
import { now } from './protocol.ts';
import { drain, quiet } from './stack-settling.ts';
import type { TradeSource } from './trade-source.ts';
import { SUBSCRIBERS, SYMBOLS } from './workload.ts';

/** Bursts per turn, and turns of each framing (single, batched, single, batched...). */
const BURSTS_PER_TURN = 5;
const TURNS = 2;

interface Turn {
  /** Each burst's last quote at the last client, from the burst's first put. */
  readonly lastMs: number[];
  /** Every quote's lag from its trade's put, over the turn's bursts. */
  readonly lags: number[];
  readonly quotes: number;
  readonly frames: number;
  readonly integrity: Record<string, number | string>;
}

async function turn(stack: LocalStack, host: ClientHost, trades: TradeSource): Promise<Turn> {
  const lastMs: number[] = [];
  const lags: number[] = [];
  let quotes = 0;
  let frames = 0;
  let integrity: Record<string, number | string> = {};
  for (let burst = 0; burst < BURSTS_PER_TURN; burst++) {
    await host.record(false);
    const started = now();
    for (let symbol = 0; symbol < SYMBOLS.length; symbol++) trades.put(symbol);
    await drain(stack);
    const collected = await host.collect();
    collected.atMs.forEach((atMs, index) => {
      const putAt = trades.putTime(collected.symbol[index] ?? -1, collected.sequence[index] ?? -1);
      if (putAt !== undefined) lags.push(atMs - putAt);
    });
    lastMs.push(Math.max(...collected.atMs) - started);
    quotes += collected.atMs.length;
    frames += collected.frames;
    const missing = SUBSCRIBERS * SYMBOLS.length - collected.atMs.length;
    integrity = { ...integrityFigures(collected), 'quotes not received': missing };
  }
  return { lastMs, lags, quotes, frames, integrity };
}

/**
 * The SUBSCRIBERS connections are opened here, subscribed to SYMBOLS one way then the other, TURNS times
 * each, and left closed; with the host's unexpected closes so far.
 */
export async function bursts(
  stack: LocalStack,
  host: ClientHost,
  trades: TradeSource,
  keys: readonly string[],
): Promise<{ results: BenchResult[]; unexpectedCloses: Readonly<Record<string, number>> }> {
  const turns = { single: [] as Turn[], batched: [] as Turn[] };
  let unexpectedCloses: Readonly<Record<string, number>> = {};
  for (let round = 0; round < TURNS; round++) {
    for (const framing of ['single', 'batched'] as const) {
      await host.open(stack.wsUrl, keys.slice(0, SUBSCRIBERS), SYMBOLS, { batch: framing === 'batched' });
      await quiet(stack);
      turns[framing].push(await turn(stack, host, trades));
      unexpectedCloses = await host.close();
    }
  }
  const results = (['single', 'batched'] as const).map((framing): BenchResult => {
    const runs = turns[framing];
    const lag = lagSummary(runs.flatMap((run) => run.lags));
    const last = runs.map((run) => lagSummary(run.lastMs).p50);
    const quotes = runs.reduce((sum, run) => sum + run.quotes, 0);
    const frames = runs.reduce((sum, run) => sum + run.frames, 0);
    return {
      name: `Burst: one trade of each of the 50 symbols at once, ${SUBSCRIBERS} accounts following all 50, quotes ${framing === 'single' ? 'one to a frame' : 'batched'} (${BURSTS_PER_TURN} bursts a turn, ${TURNS} turns alternating with the other framing)`,
      figures: {
        'last quote at the last client, median burst, each turn ms': last.join(' / '),
        'p50 ms (every quote)': lag.p50,
        'p99 ms (every quote)': lag.p99,
        quotes,
        frames,
        'quotes per frame': Number((quotes / frames).toFixed(1)),
        ...(runs.at(-1)?.integrity ?? {}),
      },
    };
  });
  return { results, unexpectedCloses };
}
