/**
 * `npm run bench -- local-memory [--minutes N] [--speed S] [--every SECONDS]`: the local stack's memory over
 * a simulated session. It starts `npm start`'s script in memory with the simulator, its clock at a session's
 * open running S times as fast (default 10), and samples the resident set size (RSS) of both processes (the
 * stack, and dynalite, the local DynamoDB in its own process) every few seconds until N simulated minutes
 * (default 30) have passed. The first start also writes the simulator's history (about 445,000 items), so the
 * figures separate the history's cost from the session's.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PROJECT_ROOT } from '#lib/project-root';
import type { Bench, BenchResult } from './types.ts';

/** A process's resident set size in MB (ps), or undefined when it is gone. */
function rssMb(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    return (
      Number(
        execFileSync('ps', ['-o', 'rss=', '-p', String(pid)])
          .toString()
          .trim(),
      ) / 1024
    );
  } catch {
    return undefined;
  }
}

/** The pid of the child of `parent` whose command line contains `needle`. */
function childPid(parent: number, needle: string): number | undefined {
  try {
    const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(parent)]).toString();
    const line = out.split('\n').find((candidate) => candidate.includes(needle));
    return line ? Number(line.trim().split(/\s+/)[0]) : undefined;
  } catch {
    return undefined;
  }
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function started(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk) => {
      output += chunk;
      if (output.includes('Ctrl-C stops it')) resolve(output);
    });
    child.once('exit', (code) => reject(new Error(`the local stack exited with ${code}:\n${output}`)));
  });
}

export const benchLocalMemory: Bench = async (options): Promise<BenchResult[]> => {
  const { values } = parseArgs({
    args: [...options],
    options: {
      minutes: { type: 'string', default: '30' },
      speed: { type: 'string', default: '10' },
      every: { type: 'string', default: '10' },
      persistent: { type: 'boolean', default: false },
    },
    strict: false,
  });
  const minutes = Number(values.minutes);
  const speed = Number(values.speed);
  const everyMs = Number(values.every) * 1000;
  // In memory (dynalite's memdown), or on disk in a fresh directory as `npm start` keeps its data (LevelDB).
  const dataDir = values.persistent ? mkdtempSync(join(tmpdir(), 'mda-memory-bench-')) : undefined;
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'scripts/local/start.ts',
      '--port',
      '0',
      '--dynamo-port',
      '0',
      ...(dataDir ? ['--data-dir', dataDir] : ['--in-memory']),
      '--clock',
      '2024-11-26T14:30:00Z',
      '--speed',
      String(speed),
    ],
    { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let log = '';
  child.stdout?.on('data', (chunk) => {
    log += chunk;
  });
  await started(child);
  const startedAt = Date.now();
  const dynalitePid = childPid(child.pid as number, 'dynalite-server');
  const rows: {
    seconds: number;
    simulatedMinutes: number;
    stackMb: number;
    dynaliteMb: number;
    history: string;
  }[] = [];
  while ((Date.now() - startedAt) * speed < minutes * 60_000) {
    await wait(everyMs);
    const seconds = Math.round((Date.now() - startedAt) / 1000);
    rows.push({
      seconds,
      simulatedMinutes: Math.round(((Date.now() - startedAt) * speed) / 60_000),
      stackMb: Math.round(rssMb(child.pid) ?? 0),
      dynaliteMb: Math.round(rssMb(dynalitePid) ?? 0),
      history: log.includes('symbols (100%)') ? 'done' : 'writing',
    });
  }
  child.kill('SIGINT');
  await new Promise((resolve) => child.once('exit', resolve));
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });

  const afterHistory = rows.filter((row) => row.history === 'done');
  const first = afterHistory[0];
  const last = afterHistory.at(-1);
  const perMinute = (pick: (row: (typeof rows)[number]) => number) =>
    first && last && last.simulatedMinutes > first.simulatedMinutes
      ? ((pick(last) - pick(first)) / (last.simulatedMinutes - first.simulatedMinutes)).toFixed(1)
      : 'n/a';
  const peak = (pick: (row: (typeof rows)[number]) => number) => Math.max(...rows.map(pick));
  return [
    {
      name: `local stack memory over ${minutes} simulated minutes (speed ${speed}, ${dataDir ? 'data on disk' : 'in memory'}, simulator on)`,
      figures: {
        'stack RSS at the first sample / peak / last (MB)': `${rows[0]?.stackMb} / ${peak((r) => r.stackMb)} / ${rows.at(-1)?.stackMb}`,
        'dynalite RSS at the first sample / peak / last (MB)': `${rows[0]?.dynaliteMb} / ${peak((r) => r.dynaliteMb)} / ${rows.at(-1)?.dynaliteMb}`,
        'after the history: stack growth (MB per simulated minute)': perMinute((r) => r.stackMb),
        'after the history: dynalite growth (MB per simulated minute)': perMinute((r) => r.dynaliteMb),
      },
      rows,
    },
  ];
};
