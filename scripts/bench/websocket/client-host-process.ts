/**
 * The client host: the benchmark's WebSocket clients, in a child process of their own (started by
 * ClientHost, scripts/bench/websocket/client-host.ts), driven over IPC. The clients share neither the
 * stack's event loop nor its heap, so the stack's memory per connection is the server's alone.
 */
import { once } from 'node:events';
import pLimit from 'p-limit';
import WebSocket from 'ws';
import { type HostCommand, type HostReply, now, sequenceOf } from './protocol.ts';

interface HostClient {
  readonly socket: WebSocket;
  readonly last: Int32Array;
  readonly seen: Set<number>;
}

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
let counts = { outOfOrder: 0, duplicates: 0, other: 0, frames: 0 };
let cpuAtRecord = process.cpuUsage();

/** Records a message; true when it is the reply that completes the connection's opening. */
function onMessage(index: number, client: HostClient, text: string, atMs: number): boolean {
  const message = JSON.parse(text) as {
    channel?: string;
    symbol?: string;
    op?: string;
    data?: { price?: number; items?: { symbol: string; price: number }[] };
  };
  if (message.channel !== 'quotes') {
    if (message.op !== 'subscribed' && message.op !== 'pong') counts.other++;
    return message.op === 'subscribed' || message.op === 'pong';
  }
  counts.frames++;
  // A batched frame (docs/websocket.md#batched-quotes) holds several quotes; a single one, its own.
  const quotes = message.data?.items ?? [{ symbol: message.symbol ?? '', price: message.data?.price ?? 0 }];
  for (const quote of quotes) recordQuote(index, client, quote.symbol, quote.price, atMs);
  return false;
}

function recordQuote(index: number, client: HostClient, symbolName: string, price: number, atMs: number) {
  const symbol = symbolIndex.get(symbolName) ?? -1;
  const sequence = sequenceOf(price);
  if (symbol < 0) {
    counts.other++;
    return;
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
}

function openOne(
  url: string,
  key: string,
  symbols: readonly string[] | undefined,
  batch: boolean,
): Promise<void> {
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
            ? {
                op: 'subscribe',
                id: index,
                topics: [{ channel: 'quotes', symbols, ...(batch ? { batch } : {}) }],
              }
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
            openOne(command.url, key, command.symbols, command.batch === true).catch((error: unknown) => {
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
      counts = { outOfOrder: 0, duplicates: 0, other: 0, frames: 0 };
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
