/**
 * The push path at its limit: a symbol's next trade is put once the first client received the quote of its
 * previous one (so no two trades of a symbol share an ingest batch, and each trade is one quote) and fewer
 * than SATURATION_BACKLOG messages are owed to the clients; messages counted at the clients after the
 * ramp, posts counted at the gateway's `@connections` (in-process and over HTTP), CPU from /proc.
 */
import type { LocalStack } from '../../local/stack.ts';
import { sleep } from '../harness.ts';
import type { BenchResult } from '../types.ts';
import { type ClientHost, integrityFigures } from './client-host.ts';
import { dynalitePid, processCpuMs } from './process-stats.ts';
import { now } from './protocol.ts';
import { drain } from './stack-settling.ts';
import type { TradeSource } from './trade-source.ts';
import { SUBSCRIBERS, SYMBOLS } from './workload.ts';

const SATURATION_SECONDS = 20;
/** The start of the run left out of the rate (the pipeline filling up). */
const SATURATION_RAMP_MS = 3000;
/** Messages owed to the clients at most before the next trade is put (8 quotes' worth). */
const SATURATION_BACKLOG = 8 * SUBSCRIBERS;

/**
 * Counts the posts at the gateway's `@connections` until `stop`: the fan-out's, made in-process
 * (scripts/local/ws-gateway.ts `InProcessConnections`), and those over HTTP (answered 200, or not).
 */
function countPosts(stack: LocalStack): {
  readonly posts: number;
  readonly failed: number;
  stop: () => void;
} {
  const handleManagement = stack.webSocket.handleManagement.bind(stack.webSocket);
  const postedBefore = stack.webSocket.posted;
  let overHttp = 0;
  let failed = 0;
  stack.webSocket.handleManagement = async (request) => {
    const answer = await handleManagement(request);
    if (request.method === 'POST') {
      if (answer.statusCode === 200) overHttp++;
      else failed++;
    }
    return answer;
  };
  return {
    get posts() {
      return stack.webSocket.posted - postedBefore + overHttp;
    },
    get failed() {
      return failed;
    },
    stop: () => {
      stack.webSocket.handleManagement = handleManagement;
    },
  };
}

/** The SUBSCRIBERS connections already open on the host; the quotes/s delivered, for the shared lag. */
export async function saturation(
  stack: LocalStack,
  host: ClientHost,
  trades: TradeSource,
): Promise<{ result: BenchResult; quotesPerSecond: number }> {
  const counted = countPosts(stack);
  const dynalite = dynalitePid(host.pid);
  const sample = async () => ({
    atMs: now(),
    posts: counted.posts,
    calls: await stack.dynamoRequestCount(),
    cpu: process.cpuUsage(),
    dynaliteMs: processCpuMs(dynalite),
  });

  await host.record(true);
  const putBefore = trades.trades;
  const ready = SYMBOLS.map((_, symbol) => symbol);
  host.onObserved = (symbol) => ready.push(symbol);
  const feed = () => {
    while (
      ready.length > 0 &&
      (trades.trades - putBefore) * SUBSCRIBERS - counted.posts < SATURATION_BACKLOG
    ) {
      trades.put(ready.shift() ?? 0);
    }
  };
  const feeder = setInterval(feed, 5);
  const started = now();

  await sleep(SATURATION_RAMP_MS);
  const from = await sample();
  await sleep(SATURATION_SECONDS * 1000 - SATURATION_RAMP_MS);
  const to = await sample();
  clearInterval(feeder);
  host.onObserved = () => undefined;
  const drainStarted = now();
  await drain(stack);
  const drainMs = now() - drainStarted;
  const collected = await host.collect();
  counted.stop();

  const seconds = (to.atMs - from.atMs) / 1000;
  const inWindow = collected.atMs.filter((atMs) => atMs >= from.atMs && atMs < to.atMs).length;
  /** CPU time as a share of one core over `overSeconds`. */
  const share = (ms: number | undefined, overSeconds = seconds) =>
    ms === undefined ? 'n/a' : `${Math.round(ms / overSeconds / 10)}%`;
  const stackCpuMs = (to.cpu.user - from.cpu.user + to.cpu.system - from.cpu.system) / 1000;
  const dynaliteMs =
    from.dynaliteMs === undefined || to.dynaliteMs === undefined
      ? undefined
      : to.dynaliteMs - from.dynaliteMs;
  const quotesPerSecond = inWindow / seconds / SUBSCRIBERS;
  return {
    quotesPerSecond,
    result: {
      name: `Saturation: ${SUBSCRIBERS} accounts subscribed to the same 50 symbols, trades put as fast as the push path delivers them (${SATURATION_SECONDS} s, the first ${SATURATION_RAMP_MS / 1000} s left out)`,
      figures: {
        'messages/s (all clients)': Math.round(inWindow / seconds),
        'quotes/s (each to 500 clients)': Number(quotesPerSecond.toFixed(1)),
        'posts/s (@connections)': Math.round((to.posts - from.posts) / seconds),
        'failed posts': counted.failed,
        'DynamoDB calls/s': Math.round((to.calls - from.calls) / seconds),
        'CPU: stack process (gateway, handlers, SDK)': share(stackCpuMs),
        'CPU: dynalite': share(dynaliteMs),
        'CPU: clients (child process, whole run)': share(collected.cpuMs, (now() - started) / 1000),
        'trades put': trades.trades - putBefore,
        'drain after the last trade s': Number((drainMs / 1000).toFixed(1)),
        ...integrityFigures(collected),
      },
    },
  };
}
