/**
 * Memory of the stack's process per idle connection: accounts connect (authorizer, `$connect`, one ping
 * each) from the client host, whose sockets are not in this process; the heap after garbage collection,
 * and the RSS, against before; then what stays once they all closed.
 */
import type { LocalStack } from '../../local/stack.ts';
import { sleep } from '../harness.ts';
import type { BenchResult } from '../types.ts';
import type { ClientHost } from './client-host.ts';
import { dynalitePid, garbageCollector, processRssBytes, settledMemory } from './process-stats.ts';
import { quiet } from './stack-settling.ts';

/** Closes the host's connections and waits until the stack has let go of them all. */
async function closeAll(stack: LocalStack, host: ClientHost): Promise<void> {
  await host.close();
  while (stack.webSocket.size > 0) await sleep(100);
  await quiet(stack);
}

/** One idle connection per key; `openSeconds`: how long the first round took to open them all. */
export async function idleMemory(
  stack: LocalStack,
  host: ClientHost,
  keys: readonly string[],
): Promise<{ result: BenchResult; openSeconds: number }> {
  const gc = garbageCollector();
  const dynalite = dynalitePid(host.pid);
  // A first round opens and closes every connection: the heap grows to hold them, the credential cache
  // holds every key, and what the second round leaves behind is what a connection leaks.
  const opening = performance.now();
  await host.open(stack.wsUrl, keys);
  const openSeconds = (performance.now() - opening) / 1000;
  await closeAll(stack, host);
  const before = await settledMemory(gc);
  const dynaliteBefore = processRssBytes(dynalite);
  await host.open(stack.wsUrl, keys);
  const open = stack.webSocket.size;
  await quiet(stack);
  const after = await settledMemory(gc);
  const dynaliteAfter = processRssBytes(dynalite);
  await closeAll(stack, host);
  const closed = await settledMemory(gc);
  const perConnection = (bytes: number) => Number((bytes / open / 1024).toFixed(1));
  return {
    openSeconds,
    result: {
      name: `Memory per idle connection: ${keys.length} accounts connected from a child process; the stack's process measured after GC (dynalite apart)`,
      figures: {
        connections: open,
        'heapUsed KiB/connection': perConnection(after.heapUsed - before.heapUsed),
        'heapUsed + external KiB/connection': perConnection(
          after.heapUsed + after.external - before.heapUsed - before.external,
        ),
        'rss KiB/connection': perConnection(after.rss - before.rss),
        'dynalite rss KiB/connection':
          dynaliteBefore === undefined || dynaliteAfter === undefined
            ? 'n/a'
            : perConnection(dynaliteAfter - dynaliteBefore),
        'heapUsed KiB/connection still held once all closed': perConnection(
          closed.heapUsed - before.heapUsed,
        ),
      },
    },
  };
}
