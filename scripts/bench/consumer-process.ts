import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { INGEST_CONSUMER_ENTRY } from '#contracts/ingest-consumer';
import type { Trade } from '#domain/market-data/bars';
import { encodeTradeRecords } from '#domain/market-data/trade-records';
import { PROJECT_ROOT } from '#lib/project-root';
import { UNIVERSE_CSV } from '../lib/project.ts';
import { parseUniverseCsv } from '../lib/universe.ts';
import { consumerProcessEnvironment } from '../local/consumer-process.ts';
import { LocalKinesisEndpoint } from '../local/kinesis-endpoint.ts';
import { shardIdOf, shardIndexOf } from '../local/sharded-event-source.ts';
import { startBenchStack } from './bench-stack.ts';
import type { BenchResult } from './types.ts';

/** 11:00 New York on a regular Friday: the trades' time. */
const SESSION_MS = Date.parse('2024-11-22T16:00:00Z');
const TRADES = 100_000;
/** A symbol's trades come in runs of this many, one record each, as the feed connector puts them. */
const RUN = 10;
const SHARDS = 4;

/**
 * The windowed ingest consumer's own process (functions/containers/ingest-consumer.ts), as its Fargate task
 * runs it, ingesting a backlog: TRADES trades over the universe's symbols, in records of RUN trades of a symbol,
 * on SHARDS shards of a local Kinesis endpoint speaking SubscribeToShard (scripts/local/kinesis-endpoint.ts), into
 * a local stack's DynamoDB (dynalite, in a process of its own). No quotes are posted (no callback URL). Reports
 * trades a second from the lease taken to the last trade counted applied (the process's own TradesApplied
 * metrics, read from its EMF output), and the process's CPU a trade (all its threads, /proc): what one
 * consumer process does with the cores it gets, for sizing its task (INGEST_CONSUMER_TASKS).
 */
export async function benchConsumerProcess(): Promise<BenchResult[]> {
  const stack = await startBenchStack(new Date(SESSION_MS));
  const kinesis = await LocalKinesisEndpoint.start({
    shards: Array.from({ length: SHARDS }, (_, index) => shardIdOf(index)),
    eventEveryMs: 100,
  });
  const symbols = parseUniverseCsv(readFileSync(UNIVERSE_CSV, 'utf8')).map(({ symbol }) => symbol);
  let records = 0;
  for (let run = 0; run * RUN < TRADES; run++) {
    const symbol = symbols[run % symbols.length] as string;
    const trades: Trade[] = Array.from({ length: RUN }, (_, index) => ({
      symbol,
      price: 100 + ((run + index) % 50) / 10,
      size: 100,
      timestamp: SESSION_MS + Math.floor(run / symbols.length) * 1_000 + index,
      tradeId: `bench-${run}-${index}`,
    }));
    const shard = shardIdOf(shardIndexOf(symbol, SHARDS));
    records += kinesis.put(shard, encodeTradeRecords(trades)).length;
  }
  const child = spawn(process.execPath, ['--import', 'tsx', INGEST_CONSUMER_ENTRY], {
    cwd: PROJECT_ROOT,
    env: withoutUnset({
      ...process.env,
      ...consumerProcessEnvironment(stack, kinesis.url),
      POWERTOOLS_LOG_LEVEL: 'INFO',
    }),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const { leaseMs, doneMs, applied, cpuMicros } = await ingestAll(child);
    const seconds = (doneMs - leaseMs) / 1000;
    return [
      {
        name: `The consumer's process ingesting a backlog: ${TRADES.toLocaleString('en-US')} trades over ${symbols.length} symbols, ${records.toLocaleString('en-US')} records on ${SHARDS} shards, no quotes`,
        figures: {
          'trades applied': applied,
          's from the lease taken to the last applied': Number(seconds.toFixed(2)),
          'trades/s': Math.round(applied / seconds),
          'process CPU µs/trade (all its threads)': Math.round(cpuMicros / applied),
          'cores busy on average': Number((cpuMicros / 1e6 / seconds).toFixed(2)),
        },
      },
    ];
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
    await kinesis.close();
    await stack.stop();
  }
}

/** Waits for the process to take the lease and count every trade applied; its CPU meanwhile. */
function ingestAll(
  child: ChildProcess,
): Promise<{ leaseMs: number; doneMs: number; applied: number; cpuMicros: number }> {
  return new Promise((resolve, reject) => {
    let leaseMs = 0;
    let cpuAtLease = 0;
    let applied = 0;
    let pending = '';
    child.once('exit', (code) => reject(new Error(`the consumer exited with ${code} before ingesting`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line) as {
          message?: string;
          _aws?: unknown;
          TradesApplied?: number | number[];
        };
        if (entry.message?.startsWith('took the lease')) {
          leaseMs = performance.now();
          cpuAtLease = processCpuMicros(child.pid as number);
        }
        if (entry._aws && entry.TradesApplied !== undefined) {
          const values = Array.isArray(entry.TradesApplied) ? entry.TradesApplied : [entry.TradesApplied];
          applied += values.reduce((sum, value) => sum + value, 0);
          if (applied >= TRADES) {
            resolve({
              leaseMs,
              doneMs: performance.now(),
              applied,
              cpuMicros: processCpuMicros(child.pid as number) - cpuAtLease,
            });
          }
        }
      }
    });
  });
}

/** A process's CPU time so far, every thread's, in µs (Linux: /proc/<pid>/stat, in clock ticks of 10 ms). */
function processCpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // utime and stime are the stat line's 14th and 15th fields, the 12th and 13th after the command's name.
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** An environment without the variables set `undefined` (removed). */
function withoutUnset(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined));
}
