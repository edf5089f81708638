/**
 * The WebSocket push path on the local stack (docs/adr/0024-quotes-posted-by-the-ingest.md): a trade put on
 * the trades stream -> ingest handler -> its ledger committed in dynalite -> the quote posted by the ingest
 * (subscribers looked up during the commit, PostToConnection in-process to the gateway's `@connections`, one
 * usage row per quote) -> the local gateway -> the client's socket.
 *
 * The clients run in a child process of their own (scripts/bench/websocket/client-host-process.ts); each
 * scenario has its module under scripts/bench/websocket/: idle memory, the lag alone and shared, saturation,
 * bursts with quotes one to a frame and batched.
 */
import pLimit from 'p-limit';
import { createKey } from '../lib/key-administration.ts';
import { type LocalStack, startLocalStack } from '../local/stack.ts';
import { ingestDesignOf } from './bench-stack.ts';
import { printWhenMain } from './harness.ts';
import type { BenchResult } from './types.ts';
import { bursts } from './websocket/burst.ts';
import { ClientHost } from './websocket/client-host.ts';
import { idleMemory } from './websocket/idle-memory.ts';
import { lagAlone, lagShared } from './websocket/lag.ts';
import { saturation } from './websocket/saturation.ts';
import { quiet } from './websocket/stack-settling.ts';
import { TradeSource } from './websocket/trade-source.ts';
import { CLOCK_START, IDLE_CONNECTIONS, SUBSCRIBERS, SYMBOLS } from './websocket/workload.ts';

/** `count` accounts with a key each (WebSocket connect, prices); their raw keys. */
function createKeys(stack: LocalStack, count: number): Promise<string[]> {
  const limit = pLimit(16);
  return Promise.all(
    Array.from({ length: count }, (_, index) =>
      limit(async () => {
        const { rawKey } = await createKey(
          {
            accountId: `ws-bench-${String(index).padStart(4, '0')}`,
            label: 'WebSocket benchmark',
            scopes: ['ws:connect', 'prices:read'],
          },
          stack.keyAdministration,
        );
        return rawKey;
      }),
    ),
  );
}

export async function benchWebSocket(options: readonly string[] = []): Promise<BenchResult[]> {
  const logged: string[] = [];
  const stack = await startLocalStack({
    port: 0,
    dynamoPort: 0,
    clock: { start: CLOCK_START, speed: 1 },
    ingest: ingestDesignOf(options),
    logLevel: 'SILENT',
    log: (line) => logged.push(line),
    // No heartbeat during the run: it would post to every connection at once.
    heartbeatMs: 3_600_000,
  });
  const trades = new TradeSource(stack);
  const host = ClientHost.start();
  try {
    const creating = performance.now();
    const keys = await createKeys(stack, IDLE_CONNECTIONS);
    const createSeconds = (performance.now() - creating) / 1000;
    // Warm-up: the handlers' clients and the gateway's first connection are not counted per connection.
    await host.open(stack.wsUrl, [stack.demoKey]);
    await host.close();

    const memory = await idleMemory(stack, host, keys);
    const results: BenchResult[] = [memory.result, ...(await lagAlone(stack, host, trades, keys[0] ?? ''))];
    const subscribing = performance.now();
    await host.open(stack.wsUrl, keys.slice(0, SUBSCRIBERS), SYMBOLS);
    const subscribeSeconds = (performance.now() - subscribing) / 1000;
    await quiet(stack);
    const saturated = await saturation(stack, host, trades);
    results.push(...(await lagShared(stack, host, trades, saturated.quotesPerSecond)), saturated.result);
    await host.close();
    const burst = await bursts(stack, host, trades, keys);
    results.push(...burst.results);
    const { unexpectedCloses } = burst;
    results.push({
      name: 'WebSocket path: setup, and faults over the whole run',
      figures: {
        [`create ${IDLE_CONNECTIONS} accounts and keys s`]: Number(createSeconds.toFixed(1)),
        [`open ${IDLE_CONNECTIONS} idle connections s`]: Number(memory.openSeconds.toFixed(1)),
        [`connect + subscribe ${SUBSCRIBERS} accounts to 50 symbols each s`]: Number(
          subscribeSeconds.toFixed(1),
        ),
        'unexpected closes': JSON.stringify(unexpectedCloses),
        'trade dead letters': stack.trades.deadLetters.length,
        'change dead letters': stack.changes.deadLetters.length,
        'stack log lines (failures)': logged.length,
      },
    });
    for (const line of logged.slice(0, 10)) process.stderr.write(`websocket bench: ${line}\n`);
    return results;
  } finally {
    await host.stop();
    await stack.stop();
  }
}

await printWhenMain(import.meta.url, benchWebSocket);
