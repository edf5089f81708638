/**
 * `npm run replay -- --file F [--speed N|max]`: replays a CSV of trades or of 1-minute bars through the
 * ingest path (docs/replay.md), so every interval is built by the same code as live trades.
 *
 *   --file F        `time,symbol,price,size` or `time,symbol,open,high,low,close,volume` (time ISO or Unix s)
 *   --speed N|max   N: N times the file's own pace; max (default): as fast as ingestion takes them
 *   --url U         a local stack's origin (default: the running one's, from .data/local-stack.json)
 *   --stack NAME    put on the deployed stack's Kinesis trades stream instead [--region R]
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import type { Trade } from '#domain/market-data/bars';
import type { TradeSink } from '#domain/market-data/ports';
import { answerHelp, exitWith, UsageError } from './lib/cli.ts';
import { DEFAULT_DATA_DIR } from './lib/project.ts';
import { parseReplayCsv, ReplayFileError } from './lib/replay-file.ts';
import { tradeSinkFor } from './lib/trade-sinks.ts';

answerHelp(import.meta.url);

/** Trades sent together while pacing: at most this much of the file's time apart. */
const PACING_SLICE_MS = 100;
const UNPACED_CHUNK = 5_000;

/** Sends the trades in slices of the file's time, each when its moment comes at `speed` times real time. */
async function replay(trades: readonly Trade[], sink: TradeSink, speed: number | 'max'): Promise<void> {
  if (speed === 'max') {
    for (let start = 0; start < trades.length; start += UNPACED_CHUNK)
      await sink.put(trades.slice(start, start + UNPACED_CHUNK));
    return;
  }
  const firstMs = trades[0]?.timestamp ?? 0;
  const startedAt = Date.now();
  let start = 0;
  while (start < trades.length) {
    const sliceStart = trades[start]?.timestamp ?? firstMs;
    let end = start;
    while (end < trades.length && (trades[end]?.timestamp ?? 0) < sliceStart + PACING_SLICE_MS) end++;
    const due = startedAt + (sliceStart - firstMs) / speed;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    await sink.put(trades.slice(start, end));
    start = end;
  }
}

try {
  const { values } = parseArgs({
    options: {
      file: { type: 'string' },
      speed: { type: 'string', default: 'max' },
      url: { type: 'string' },
      stack: { type: 'string' },
      region: { type: 'string' },
      'data-dir': { type: 'string', default: DEFAULT_DATA_DIR },
    },
  });
  if (!values.file) throw new UsageError('--file is required (a CSV of trades or of 1-minute bars)');
  const speed = values.speed === 'max' ? 'max' : Number(values.speed);
  if (speed !== 'max' && !(speed > 0))
    throw new UsageError(`--speed ${values.speed} must be a positive number or max`);

  const { kind, trades } = parseReplayCsv(await readFile(values.file, 'utf8'), basename(values.file));
  const sink = await tradeSinkFor({
    stack: values.stack,
    region: values.region,
    url: values.url,
    dataDir: values['data-dir'],
  });
  const started = Date.now();
  await replay(trades, sink, speed);
  const seconds = (Date.now() - started) / 1000;
  process.stdout.write(
    `Replayed ${trades.length} trades from ${kind === 'bars' ? '1-minute bars' : 'trades'} in ${values.file} in ${seconds.toFixed(1)} s\n`,
  );
} catch (error) {
  exitWith('replay', error instanceof ReplayFileError ? new UsageError(error.message) : error);
}
