/** CPU and memory of the stack's processes: dynalite's from Linux /proc, this one's after garbage collection. */
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { sleep } from '../harness.ts';

/** dynalite's process: this process's one child other than `otherChild` (the client host). */
export function dynalitePid(otherChild: number | undefined): number | undefined {
  try {
    const children = readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8');
    const pids = children
      .trim()
      .split(/\s+/)
      .map(Number)
      .filter((pid) => pid > 0 && pid !== otherChild);
    return pids.length === 1 ? pids[0] : undefined;
  } catch {
    return undefined;
  }
}

/** CPU ms a process has used (/proc/<pid>/stat utime + stime, at Linux's 100 ticks a second). */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

export function processRssBytes(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** `gc()`, exposed at run time when node was started without `--expose-gc`. */
export function garbageCollector(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** This process's memory after three rounds of garbage collection. */
export async function settledMemory(gc: () => void): Promise<NodeJS.MemoryUsage> {
  for (let i = 0; i < 3; i++) {
    gc();
    await sleep(200);
  }
  return process.memoryUsage();
}
