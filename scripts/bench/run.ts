/**
 * `npm run bench [-- name ... [--option ...]]`: the benchmarks, one after the other on this machine, printed
 * as Markdown tables (the figures quoted in docs/benchmarks.md). Names: aggregation, strat, rest, pipeline,
 * websocket, cold-import, local-memory, backfill, amendments, alerts, session, posts, log-bytes, consumer-process. The arguments from the first one starting with `--` on are options, passed to
 * every benchmark named (`npm run bench -- cold-import --root ../other-checkout`); those that take none
 * ignore them.
 *
 * Each benchmark runs in a process of its own: a local stack's handlers read their environment once per
 * process (ADR 0007), so two benchmarks that start a stack cannot share one; and a benchmark is not
 * measured on a heap another one left behind.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { answerHelp } from '../lib/cli.ts';
import { benchAggregation } from './aggregation.ts';
import { benchAlerts } from './alerts.ts';
import { benchAmendments } from './amendments.ts';
import { benchBackfill } from './backfill.ts';
import { benchColdImport } from './cold-import.ts';
import { benchConsumerProcess } from './consumer-process.ts';
import { rowsTable } from './harness.ts';
import { benchLocalMemory } from './local-memory.ts';
import { benchLogBytes } from './log-bytes.ts';
import { benchPipeline } from './pipeline.ts';
import { benchPosts } from './posts.ts';
import { benchRest } from './rest.ts';
import { benchSession } from './session.ts';
import { benchStrat } from './strat.ts';
import type { Bench, BenchResult } from './types.ts';
import { benchWebSocket } from './websocket.ts';

answerHelp(import.meta.url);

const BENCHES: Record<string, Bench> = {
  aggregation: benchAggregation,
  strat: benchStrat,
  rest: benchRest,
  pipeline: benchPipeline,
  websocket: benchWebSocket,
  'cold-import': benchColdImport,
  'local-memory': benchLocalMemory,
  backfill: benchBackfill,
  amendments: benchAmendments,
  alerts: benchAlerts,
  session: benchSession,
  posts: benchPosts,
  'log-bytes': benchLogBytes,
  'consumer-process': benchConsumerProcess,
};

/** The flag a child process gets: run this one benchmark here and print its tables. */
const IN_PROCESS = '--in-process';

function table(results: readonly BenchResult[]): string {
  const lines: string[] = [];
  for (const result of results) {
    lines.push(`\n### ${result.name}\n`, '| figure | value |', '|---|---|');
    for (const [figure, value] of Object.entries(result.figures)) lines.push(`| ${figure} | ${value} |`);
    if (result.rows?.length) lines.push('', rowsTable(result.rows));
  }
  return lines.join('\n');
}

async function runInChild(name: string, options: readonly string[]): Promise<number> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), IN_PROCESS, name, ...options],
    {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT' },
    },
  );
  const [code] = await once(child, 'exit');
  return code as number;
}

const args = process.argv.slice(2);
if (args[0] === IN_PROCESS) {
  const bench = BENCHES[args[1] ?? ''];
  if (!bench) process.exit(2);
  process.stdout.write(`${table(await bench(args.slice(2)))}\n`);
  process.exit(0);
}
const firstOption = args.findIndex((arg) => arg.startsWith('--'));
const named = firstOption === -1 ? args : args.slice(0, firstOption);
const options = firstOption === -1 ? [] : args.slice(firstOption);
const unknown = named.filter((name) => !(name in BENCHES));
if (unknown.length > 0) {
  process.stderr.write(
    `bench: unknown benchmark(s) ${unknown.join(', ')}; known: ${Object.keys(BENCHES).join(', ')}\n`,
  );
  process.exit(2);
}
const names = named.length > 0 ? named : Object.keys(BENCHES);
process.stdout.write(
  `# Benchmarks (${new Date().toISOString()}, Node ${process.version}, ${names.join(', ')})\n`,
);
let failed = 0;
for (const name of names) {
  if ((await runInChild(name, options)) !== 0) {
    process.stderr.write(`bench: ${name} failed\n`);
    failed++;
  }
}
process.exit(failed === 0 ? 0 : 1);
