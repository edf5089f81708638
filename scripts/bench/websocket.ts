/**
 * The WebSocket push path on the local stack (ARCHITECTURE A3): a trade put on the trades stream (100 ms
 * window) -> ingest handler -> prices row in dynalite -> captured change -> fan-out handler (a subscription
 * Query per topic, PostToConnection over loopback HTTP to the gateway's `@connections`, one usage row per
 * message) -> the local gateway -> the client's socket.
 *
 * The clients run in a child process of their own (this module, started with CLIENT_HOST): they do not
 * share the stack's event loop or heap, so the stack's memory per connection is the server's alone. Both
 * processes stamp times with `performance.timeOrigin + performance.now()`, comparable on one machine.
 * Prices encode a per-symbol sequence number, so each quote names the trade that made it.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import pLimit from 'p-limit';
import WebSocket from 'ws';
import type { Trade } from '#domain/aggregation';
import { createKey } from '#domain/key-administration';
import { encodeTradeRecord } from '#domain/trade-records';
import { parseUniverseCsv } from '#domain/universe';
import { UNIVERSE_CSV } from '../lib/project.ts';
import { type LocalStack, startLocalStack } from '../local/stack.ts';
import { percentile, printWhenMain } from './harness.ts';
import type { BenchResult } from './types.ts';

/** 11:00 New York on a regular Friday: the service clock starts here, and every trade is stamped from it. */
const CLOCK_START = new Date('2024-11-22T16:00:00Z');
/** Every connection subscribes to these (the same 50 equities), and only these are traded. */
const SYMBOLS = parseUniverseCsv(readFileSync(UNIVERSE_CSV, 'utf8'))
  .map(({ symbol }) => symbol)
  .filter((symbol) => !symbol.endsWith('!'))
  .slice(0, 50);
const IDLE_CONNECTIONS = 1000;
const SUBSCRIBERS = 500;
const LAG_ALONE = { tradesPerSecond: 100, seconds: 20 };
/**
 * With 500 subscribers every quote is 500 messages, and the local path delivers a few hundred to a few
 * thousand a second: the shared lag is measured at this share of the saturation rate measured just before,
 * so that it is the path's lag, not a queue's growth.
 */
const LAG_SHARED = { shareOfSaturation: 0.5, seconds: 25 };
/** Trades put before the lag is measured: the ingest path's first writes of each symbol and its JIT. */
const LAG_WARM_UP_SECONDS = 3;
const SATURATION_SECONDS = 20;
/** Saturation: the start of the run left out of the rate (the pipeline filling up). */
const SATURATION_RAMP_MS = 3000;
/** Saturation: messages owed to the clients at most before the next trade is put (8 quotes' worth). */
const SATURATION_BACKLOG = 8 * SUBSCRIBERS;

/** The flag that makes this module the client host (child process) instead of the benchmark. */
const CLIENT_HOST = '--ws-client-host';

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A trade's price carries its per-symbol sequence number (unique per symbol, so a quote names its trade). */
const priceOf = (sequence: number) => (10_000 + sequence) / 100;
const sequenceOf = (price: number) => Math.round(price * 100) - 10_000;

// ---------------------------------------------------------------------------------------------------------
// The client host: the benchmark's WebSocket clients, in a child process, driven over IPC.

type HostCommand =
  | {
      readonly op: 'open';
      readonly url: string;
      readonly keys: readonly string[];
      /** Subscribe each connection to `quotes` of these; without, the connection stays idle (one ping). */
      readonly symbols?: readonly string[];
    }
  /** Forget what was received so far and record from now on; `notify`: report the first client's quotes. */
  | { readonly op: 'record'; readonly notify: boolean }
  | { readonly op: 'collect' }
  | { readonly op: 'close' };

interface Collected {
  readonly op: 'collected';
  /** One entry per quote message: which client (opening order), symbol index, sequence, arrival time. */
  readonly client: number[];
  readonly symbol: number[];
  readonly sequence: number[];
  readonly atMs: number[];
  /** A client's quote of a symbol older than the last one it had of that symbol. */
  readonly outOfOrder: number;
  /** A client's quote it had already received. */
  readonly duplicates: number;
  /** Quotes some client received and another (subscribed to the same symbols) never did. */
  readonly missing: number;
  /** Messages that were neither quotes nor replies (heartbeats, errors). */
  readonly other: number;
  /** CPU time of the client host since `record`, ms. */
  readonly cpuMs: number;
  /** Connections open. */
  readonly clients: number;
}

type HostReply =
  | { readonly op: 'opened'; readonly opened: number; readonly failures: readonly string[] }
  | { readonly op: 'recording' }
  | Collected
  | { readonly op: 'closed'; readonly unexpectedCloses: Readonly<Record<string, number>> }
  | { readonly op: 'observed'; readonly symbol: number; readonly sequence: number };

interface HostClient {
  readonly socket: WebSocket;
  readonly last: Int32Array;
  readonly seen: Set<number>;
}

function hostClients(): void {
  const send = (reply: HostReply) => process.send?.(reply);
  let clients: HostClient[] = [];
  let symbolIndex = new Map<string, number>();
  let notify = false;
  let closing = false;
  const unexpectedCloses: Record<string, number> = {};
  const emptyLog = () => ({
    client: [] as number[],
    symbol: [] as number[],
    sequence: [] as number[],
    atMs: [] as number[],
  });
  let log = emptyLog();
  let counts = { outOfOrder: 0, duplicates: 0, other: 0 };
  let cpuAtRecord = process.cpuUsage();

  function onMessage(index: number, client: HostClient, text: string, atMs: number): boolean {
    const message = JSON.parse(text) as {
      channel?: string;
      symbol?: string;
      op?: string;
      data?: { price?: number };
    };
    if (message.channel !== 'quotes') {
      if (message.op !== 'subscribed' && message.op !== 'pong') counts.other++;
      return message.op === 'subscribed' || message.op === 'pong';
    }
    const symbol = symbolIndex.get(message.symbol ?? '') ?? -1;
    const sequence = sequenceOf(message.data?.price ?? 0);
    if (symbol < 0) {
      counts.other++;
      return false;
    }
    log.client.push(index);
    log.symbol.push(symbol);
    log.sequence.push(sequence);
    log.atMs.push(atMs);
    const key = symbol * 1_000_000 + sequence;
    if (client.seen.has(key)) counts.duplicates++;
    else client.seen.add(key);
    const last = client.last[symbol] ?? -1;
    if (sequence < last) counts.outOfOrder++;
    else client.last[symbol] = sequence;
    if (notify && index === 0) send({ op: 'observed', symbol, sequence });
    return false;
  }

  function openOne(url: string, key: string, symbols: readonly string[] | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, { headers: { 'X-API-Key': key } });
      const client: HostClient = { socket, last: new Int32Array(symbolIndex.size).fill(-1), seen: new Set() };
      const index = clients.length;
      clients.push(client);
      const timer = setTimeout(() => reject(new Error('no reply within 60 s')), 60_000);
      socket.on('message', (data) => {
        if (onMessage(index, client, data.toString(), now())) {
          clearTimeout(timer);
          resolve();
        }
      });
      socket.on('error', (error) => reject(error));
      socket.on('close', (code) => {
        clearTimeout(timer);
        reject(new Error(`closed with ${code}`));
        if (!closing) unexpectedCloses[code] = (unexpectedCloses[code] ?? 0) + 1;
      });
      socket.on('open', () => {
        socket.send(
          JSON.stringify(
            symbols
              ? { op: 'subscribe', id: index, topics: [{ channel: 'quotes', symbols }] }
              : { op: 'ping', id: index },
          ),
        );
      });
    });
  }

  async function handle(command: HostCommand): Promise<void> {
    switch (command.op) {
      case 'open': {
        if (command.symbols) symbolIndex = new Map(command.symbols.map((symbol, index) => [symbol, index]));
        const limit = pLimit(25);
        const failures: string[] = [];
        await Promise.all(
          command.keys.map((key) =>
            limit(() =>
              openOne(command.url, key, command.symbols).catch((error: unknown) => {
                failures.push(error instanceof Error ? error.message : String(error));
              }),
            ),
          ),
        );
        send({ op: 'opened', opened: command.keys.length - failures.length, failures: failures.slice(0, 5) });
        return;
      }
      case 'record':
        log = emptyLog();
        counts = { outOfOrder: 0, duplicates: 0, other: 0 };
        for (const client of clients) {
          client.seen.clear();
          client.last.fill(-1);
        }
        notify = command.notify;
        cpuAtRecord = process.cpuUsage();
        send({ op: 'recording' });
        return;
      case 'collect': {
        notify = false;
        const union = new Set<number>();
        for (const client of clients) for (const key of client.seen) union.add(key);
        const missing = clients.reduce((sum, client) => sum + union.size - client.seen.size, 0);
        const cpu = process.cpuUsage(cpuAtRecord);
        send({
          op: 'collected',
          ...log,
          ...counts,
          missing,
          cpuMs: (cpu.user + cpu.system) / 1000,
          clients: clients.length,
        });
        return;
      }
      case 'close': {
        closing = true;
        await Promise.all(
          clients.map(({ socket }) => {
            if (socket.readyState === WebSocket.CLOSED) return undefined;
            const closed = once(socket, 'close');
            socket.close();
            return closed;
          }),
        );
        clients = [];
        closing = false;
        send({ op: 'closed', unexpectedCloses });
        return;
      }
    }
  }

  let queue = Promise.resolve();
  process.on('message', (command: HostCommand) => {
    queue = queue.then(() => handle(command));
  });
  process.on('disconnect', () => process.exit(0));
}

/** The benchmark's side of the client host. */
class ClientHost {
  private waiting: ((reply: HostReply) => void) | undefined;
  onObserved: (symbol: number, sequence: number) => void = () => undefined;

  private constructor(private readonly child: ReturnType<typeof spawn>) {
    child.on('message', (reply: HostReply) => {
      if (reply.op === 'observed') this.onObserved(reply.symbol, reply.sequence);
      else this.waiting?.(reply);
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  static start(): ClientHost {
    return new ClientHost(
      spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), CLIENT_HOST], {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      }),
    );
  }

  request<Op extends HostReply['op']>(command: HostCommand, op: Op): Promise<Extract<HostReply, { op: Op }>> {
    return new Promise((resolve, reject) => {
      const exited = (code: number | null) => reject(new Error(`the client host exited (${code})`));
      this.child.once('exit', exited);
      this.waiting = (reply) => {
        this.waiting = undefined;
        this.child.off('exit', exited);
        if (reply.op === op) resolve(reply as Extract<HostReply, { op: Op }>);
        else reject(new Error(`the client host answered ${reply.op}, not ${op}`));
      };
      this.child.send(command);
    });
  }

  async open(url: string, keys: readonly string[], symbols?: readonly string[]): Promise<void> {
    const { opened, failures } = await this.request({ op: 'open', url, keys, symbols }, 'opened');
    if (opened !== keys.length)
      throw new Error(`${keys.length - opened} of ${keys.length} connections failed: ${failures.join('; ')}`);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = once(this.child, 'exit');
    this.child.disconnect();
    await exited;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Measuring the stack's side.

/** dynalite's process: the stack's one child process other than the client host (Linux /proc). */
function dynalitePid(host: ClientHost): number | undefined {
  try {
    const children = readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8');
    const pids = children
      .trim()
      .split(/\s+/)
      .map(Number)
      .filter((pid) => pid > 0 && pid !== host.pid);
    return pids.length === 1 ? pids[0] : undefined;
  } catch {
    return undefined;
  }
}

/** CPU ms a process has used (/proc/<pid>/stat utime + stime, at Linux's 100 ticks a second). */
function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

function processRssBytes(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** `gc()`, exposed at run time when node was started without `--expose-gc`. */
function garbageCollector(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

async function settledMemory(gc: () => void): Promise<NodeJS.MemoryUsage> {
  for (let i = 0; i < 3; i++) {
    gc();
    await sleep(200);
  }
  return process.memoryUsage();
}

/** Per-symbol sequence numbers and timestamps, increasing across the whole run; put times by trade. */
class TradeSource {
  private readonly sequence = new Array<number>(SYMBOLS.length).fill(0);
  private readonly lastStamp = new Array<number>(SYMBOLS.length).fill(0);
  private readonly putAt = new Map<number, number>();
  private next = 0;

  constructor(
    private readonly stack: LocalStack,
    private readonly startedAtMs: number,
  ) {}

  /** Puts the next trade of `symbol`, stamped at the service clock's now. */
  put(symbol: number): void {
    const sequence = this.sequence[symbol] ?? 0;
    this.sequence[symbol] = sequence + 1;
    const timestamp = Math.max(
      CLOCK_START.getTime() + (Date.now() - this.startedAtMs),
      (this.lastStamp[symbol] ?? 0) + 1,
    );
    this.lastStamp[symbol] = timestamp;
    const trade: Trade = {
      symbol: SYMBOLS[symbol] ?? '',
      price: priceOf(sequence),
      size: 100,
      timestamp,
      tradeId: `ws-bench-${String(sequence).padStart(8, '0')}`,
    };
    this.putAt.set(symbol * 1_000_000 + sequence, now());
    this.stack.trades.put([{ partitionKey: trade.symbol, data: encodeTradeRecord(trade) }]);
  }

  /** The next trade round robin over the symbols; returns its symbol. */
  putNext(): number {
    const symbol = this.next;
    this.put(symbol);
    this.next = (symbol + 1) % SYMBOLS.length;
    return symbol;
  }

  /** The sequence number of the last trade put of `symbol`, -1 before any. */
  lastSequence(symbol: number): number {
    return (this.sequence[symbol] ?? 0) - 1;
  }

  putTime(symbol: number, sequence: number): number | undefined {
    return this.putAt.get(symbol * 1_000_000 + sequence);
  }

  get trades(): number {
    return this.putAt.size;
  }
}

/**
 * Waits until the trades put so far are ingested, the changes they made delivered, and the stack's
 * DynamoDB calls have stopped for half a second (the last posts' usage rows, the `$disconnect`s).
 */
async function drain(stack: LocalStack): Promise<void> {
  await stack.trades.flush();
  // Its answer comes after every change dynalite reported before it: all of them are captured now.
  await stack.dynamoRequestCount();
  await stack.changes.flush();
  await quiet(stack);
}

async function quiet(stack: LocalStack): Promise<void> {
  let calls = await stack.dynamoRequestCount();
  for (;;) {
    await sleep(500);
    const next = await stack.dynamoRequestCount();
    if (next === calls) return;
    calls = next;
  }
}

const round = (value: number) => Math.round(value);

function lagSummary(lags: number[]): { p50: number; p99: number; max: number } {
  const sorted = lags.sort((a, b) => a - b);
  return {
    p50: round(percentile(sorted, 50)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.at(-1) ?? 0),
  };
}

function integrityFigures(collected: Collected): Record<string, number | string> {
  return {
    'out of order': collected.outOfOrder,
    duplicates: collected.duplicates,
    missing: collected.missing,
    'other messages': collected.other,
  };
}

/**
 * Steady trades round robin over the 50 symbols for LAG_WARM_UP_SECONDS, then `seconds` measured: the lag
 * of every quote message at every client from the put of the trade it carries (measured trades only).
 */
async function lagRun(
  stack: LocalStack,
  host: ClientHost,
  trades: TradeSource,
  run: { tradesPerSecond: number; seconds: number },
): Promise<{ collected: Collected; put: number; observer: number[]; all: number[]; latest: string }> {
  await host.request({ op: 'record', notify: false }, 'recording');
  const started = performance.now();
  const measuredFrom = now() + LAG_WARM_UP_SECONDS * 1000;
  const totalMs = (LAG_WARM_UP_SECONDS + run.seconds) * 1000;
  let put = 0;
  let measured = 0;
  const traded = new Set<number>();
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const elapsed = performance.now() - started;
      const due = Math.min(totalMs, elapsed) * (run.tradesPerSecond / 1000);
      while (put < Math.floor(due)) {
        traded.add(trades.putNext());
        put++;
        if (now() >= measuredFrom) measured++;
      }
      if (elapsed >= totalMs) {
        clearInterval(timer);
        resolve();
      }
    }, 10);
  });
  await drain(stack);
  const collected = await host.request({ op: 'collect' }, 'collected');
  const observer: number[] = [];
  const all: number[] = [];
  const gotLatest = new Set<number>();
  collected.atMs.forEach((atMs, index) => {
    const symbol = collected.symbol[index] ?? -1;
    const sequence = collected.sequence[index] ?? -1;
    if (traded.has(symbol) && sequence === trades.lastSequence(symbol))
      gotLatest.add((collected.client[index] ?? 0) * SYMBOLS.length + symbol);
    const putAt = trades.putTime(symbol, sequence);
    if (putAt === undefined || putAt < measuredFrom) return;
    all.push(atMs - putAt);
    if (collected.client[index] === 0) observer.push(atMs - putAt);
  });
  const latest = `${gotLatest.size} of ${collected.clients * traded.size}`;
  return { collected, put: measured, observer, all, latest };
}

async function lagAlone(
  stack: LocalStack,
  host: ClientHost,
  trades: TradeSource,
  key: string,
): Promise<BenchResult> {
  await host.open(stack.wsUrl, [key], SYMBOLS);
  const { collected, put, observer, latest } = await lagRun(stack, host, trades, LAG_ALONE);
  await host.request({ op: 'close' }, 'closed');
  const lag = lagSummary(observer);
  return {
    name: `Lag: trade put -> its quotes message at the client (1 account subscribed to 50 symbols, ${LAG_ALONE.tradesPerSecond} trades/s over them, ${LAG_ALONE.seconds} s after ${LAG_WARM_UP_SECONDS} s of warm-up)`,
    figures: {
      'p50 ms': lag.p50,
      'p99 ms': lag.p99,
      'max ms': lag.max,
      'trades put': put,
      // Fewer than the trades: a batch carrying two trades of a symbol writes (and pushes) only the later.
      quotes: observer.length,
      'symbols whose last trade arrived': latest,
      ...integrityFigures(collected),
    },
  };
}

async function lagShared(
  stack: LocalStack,
  host: ClientHost,
  trades: TradeSource,
  tradesPerSecond: number,
): Promise<BenchResult> {
  const run = { tradesPerSecond, seconds: LAG_SHARED.seconds };
  const { collected, put, observer, all, latest } = await lagRun(stack, host, trades, run);
  const atObserver = lagSummary(observer);
  const atAll = lagSummary(all);
  return {
    name: `Lag: trade put -> its quotes message (${SUBSCRIBERS} accounts, each subscribed to the same 50 symbols, ${tradesPerSecond} trades/s over them = ${LAG_SHARED.shareOfSaturation * 100}% of the saturation rate, ${LAG_SHARED.seconds} s after ${LAG_WARM_UP_SECONDS} s of warm-up)`,
    figures: {
      'p50 ms (every message)': atAll.p50,
      'p99 ms (every message)': atAll.p99,
      'max ms (every message)': atAll.max,
      'p50 ms (one client)': atObserver.p50,
      'p99 ms (one client)': atObserver.p99,
      'trades put': put,
      'quotes (one client)': observer.length,
      'messages (all clients)': all.length,
      '(client, symbol) pairs whose last trade arrived': latest,
      ...integrityFigures(collected),
    },
  };
}

/**
 * The push path at its limit: a symbol's next trade is put once the first client received the quote of its
 * previous one (so no two trades of a symbol share an ingest batch, and each trade is one quote) and fewer
 * than SATURATION_BACKLOG messages are owed to the clients; messages counted at the clients after the
 * ramp, posts counted at the gateway's `@connections`, CPU from /proc.
 */
async function saturation(
  stack: LocalStack,
  host: ClientHost,
  trades: TradeSource,
): Promise<{ result: BenchResult; quotesPerSecond: number }> {
  let posts = 0;
  let failedPosts = 0;
  const handleManagement = stack.webSocket.handleManagement.bind(stack.webSocket);
  stack.webSocket.handleManagement = async (request) => {
    const answer = await handleManagement(request);
    if (request.method === 'POST') {
      if (answer.statusCode === 200) posts++;
      else failedPosts++;
    }
    return answer;
  };
  const dynalite = dynalitePid(host);

  await host.request({ op: 'record', notify: true }, 'recording');
  const putBefore = trades.trades;
  const ready = SYMBOLS.map((_, symbol) => symbol);
  host.onObserved = (symbol) => ready.push(symbol);
  const feed = () => {
    while (ready.length > 0 && (trades.trades - putBefore) * SUBSCRIBERS - posts < SATURATION_BACKLOG) {
      trades.put(ready.shift() ?? 0);
    }
  };
  const feeder = setInterval(feed, 5);
  const started = now();

  await sleep(SATURATION_RAMP_MS);
  const from = {
    atMs: now(),
    posts,
    calls: await stack.dynamoRequestCount(),
    cpu: process.cpuUsage(),
    dynaliteMs: processCpuMs(dynalite),
  };
  await sleep(SATURATION_SECONDS * 1000 - SATURATION_RAMP_MS);
  const to = {
    atMs: now(),
    posts,
    calls: await stack.dynamoRequestCount(),
    cpu: process.cpuUsage(from.cpu),
    dynaliteMs: processCpuMs(dynalite),
  };
  clearInterval(feeder);
  host.onObserved = () => undefined;
  const drainStarted = now();
  await drain(stack);
  const drainMs = now() - drainStarted;
  const collected = await host.request({ op: 'collect' }, 'collected');
  stack.webSocket.handleManagement = handleManagement;

  const seconds = (to.atMs - from.atMs) / 1000;
  const inWindow = collected.atMs.filter((atMs) => atMs >= from.atMs && atMs < to.atMs).length;
  /** CPU time as a share of one core over `overSeconds`. */
  const share = (ms: number | undefined, overSeconds = seconds) =>
    ms === undefined ? 'n/a' : `${round(ms / overSeconds / 10)}%`;
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
        'messages/s (all clients)': round(inWindow / seconds),
        'quotes/s (each to 500 clients)': Number(quotesPerSecond.toFixed(1)),
        'posts/s (@connections)': round((to.posts - from.posts) / seconds),
        'failed posts': failedPosts,
        'DynamoDB calls/s': round((to.calls - from.calls) / seconds),
        'CPU: stack process (gateway, handlers, SDK)': share((to.cpu.user + to.cpu.system) / 1000),
        'CPU: dynalite': share(dynaliteMs),
        'CPU: clients (child process, whole run)': share(collected.cpuMs, (now() - started) / 1000),
        'trades put': trades.trades - putBefore,
        'drain after the last trade s': Number((drainMs / 1000).toFixed(1)),
        ...integrityFigures(collected),
      },
    },
  };
}

/**
 * Memory of the stack's process per idle connection: 1,000 accounts connect (authorizer, `$connect`, one
 * ping each) from the client host, whose sockets are not in this process; the heap after garbage
 * collection, and the RSS, against before; then what stays once they all closed.
 */
async function idleMemory(
  stack: LocalStack,
  host: ClientHost,
  keys: readonly string[],
): Promise<{ result: BenchResult; openSeconds: number }> {
  const gc = garbageCollector();
  const dynalite = dynalitePid(host);
  // A first round opens and closes every connection: the heap grows to hold them, the credential cache
  // holds every key, and what the second round leaves behind is what a connection leaks.
  const opening = performance.now();
  await host.open(stack.wsUrl, keys);
  const openSeconds = (performance.now() - opening) / 1000;
  await host.request({ op: 'close' }, 'closed');
  while (stack.webSocket.size > 0) await sleep(100);
  await quiet(stack);
  const before = await settledMemory(gc);
  const dynaliteBefore = processRssBytes(dynalite);
  await host.open(stack.wsUrl, keys);
  const open = stack.webSocket.size;
  await quiet(stack);
  const after = await settledMemory(gc);
  const dynaliteAfter = processRssBytes(dynalite);
  await host.request({ op: 'close' }, 'closed');
  while (stack.webSocket.size > 0) await sleep(100);
  await quiet(stack);
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

export async function benchWebSocket(): Promise<BenchResult[]> {
  const logged: string[] = [];
  const stack = await startLocalStack({
    port: 0,
    dynamoPort: 0,
    clock: { start: CLOCK_START, speed: 1 },
    logLevel: 'SILENT',
    log: (line) => logged.push(line),
    // No heartbeat during the run: it would post to every connection at once.
    heartbeatMs: 3_600_000,
  });
  const trades = new TradeSource(stack, Date.now());
  const host = ClientHost.start();
  try {
    const creating = performance.now();
    const limit = pLimit(16);
    const keys = await Promise.all(
      Array.from({ length: IDLE_CONNECTIONS }, (_, index) =>
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
    const createSeconds = (performance.now() - creating) / 1000;
    // Warm-up: the handlers' clients and the gateway's first connection are not counted per connection.
    await host.open(stack.wsUrl, [stack.demoKey]);
    await host.request({ op: 'close' }, 'closed');

    const memory = await idleMemory(stack, host, keys);
    const results: BenchResult[] = [memory.result, await lagAlone(stack, host, trades, keys[0] ?? '')];
    const subscribing = performance.now();
    await host.open(stack.wsUrl, keys.slice(0, SUBSCRIBERS), SYMBOLS);
    const subscribeSeconds = (performance.now() - subscribing) / 1000;
    await quiet(stack);
    const saturated = await saturation(stack, host, trades);
    const sharedRate = Math.max(
      0.2,
      Number((saturated.quotesPerSecond * LAG_SHARED.shareOfSaturation).toFixed(1)),
    );
    results.push(await lagShared(stack, host, trades, sharedRate), saturated.result);
    const closed = await host.request({ op: 'close' }, 'closed');
    results.push({
      name: 'WebSocket path: setup, and faults over the whole run',
      figures: {
        [`create ${IDLE_CONNECTIONS} accounts and keys s`]: Number(createSeconds.toFixed(1)),
        [`open ${IDLE_CONNECTIONS} idle connections s`]: Number(memory.openSeconds.toFixed(1)),
        [`connect + subscribe ${SUBSCRIBERS} accounts to 50 symbols each s`]: Number(
          subscribeSeconds.toFixed(1),
        ),
        'unexpected closes': JSON.stringify(closed.unexpectedCloses),
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

if (process.argv[2] === CLIENT_HOST) hostClients();
else await printWhenMain(import.meta.url, benchWebSocket);
