/**
 * Local fakes of the providers' protocols (docs/data-sources.md), real servers on free ports: a WebSocket
 * endpoint speaking the documented handshake and messages (test/fixtures/providers/), and the REST trades
 * endpoint serving every trade the fake "printed", whether or not a client was connected to receive it.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';

export type Message = Record<string, unknown>;

/** A fixture's first message (each fixture file is an array, as the providers send). */
export function fixture(name: string): Message {
  const url = new URL(`../fixtures/providers/${name}.json`, import.meta.url);
  const value = JSON.parse(readFileSync(url, 'utf8')) as Message | Message[];
  return structuredClone(Array.isArray(value) ? (value[0] as Message) : value);
}

export type Dialect = 'alpaca' | 'polygon';

export interface FakeProviderOptions {
  /** The key (Alpaca: key id) the fake accepts. */
  readonly key: string;
  /** Alpaca's secret. */
  readonly secret?: string;
  /** Most symbols one connection may subscribe (Alpaca's 405). */
  readonly symbolLimit?: number;
}

export class FakeProvider {
  /** Connections accepted, over the fake's life. */
  connections = 0;
  /** Every subscription request: the symbols asked for. */
  readonly subscriptions: string[][] = [];
  /** Every trade message printed, in order (the REST endpoint's history). */
  readonly printed: Message[] = [];
  private active: WebSocket | undefined;
  private readonly subscribers = new Set<() => void>();

  private constructor(
    readonly dialect: Dialect,
    private readonly options: FakeProviderOptions,
    private readonly http: Server,
    private readonly wss: WebSocketServer,
  ) {
    wss.on('connection', (socket) => this.accept(socket));
  }

  static async start(dialect: Dialect, options: FakeProviderOptions): Promise<FakeProvider> {
    const http = createServer();
    const wss = new WebSocketServer({ server: http });
    const fake = new FakeProvider(dialect, options, http, wss);
    http.on('request', (request, response) => fake.rest(request.url ?? '/', response));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get port(): number {
    return (this.http.address() as AddressInfo).port;
  }

  /** The stream URL (the path as the provider's: `/v2/iex`, `/stocks`). */
  url(path = this.dialect === 'alpaca' ? '/v2/iex' : '/stocks'): string {
    return `ws://127.0.0.1:${this.port}${path}`;
  }

  get restUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get isConnected(): boolean {
    return this.active !== undefined;
  }

  /** Resolves once `count` subscriptions were acknowledged in all. */
  async subscribed(count = 1): Promise<void> {
    while (this.subscriptions.length < count) {
      await new Promise<void>((resolve) => this.subscribers.add(resolve));
    }
  }

  /** Prints messages: trades go to the history; all go to the subscribed client if there is one. */
  publish(messages: readonly Message[]): void {
    for (const message of messages) {
      if (message.T === 't' || message.ev === 'T') this.printed.push(message);
    }
    if (this.active?.readyState === WebSocket.OPEN) this.active.send(JSON.stringify(messages));
  }

  /** Sends raw text to the subscribed client. */
  sendRaw(text: string): void {
    this.active?.send(text);
  }

  /** Drops the connection as a network failure does: no close frame. */
  drop(): void {
    this.active?.terminate();
    this.active = undefined;
  }

  async close(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  private accept(socket: WebSocket): void {
    this.connections++;
    const send = (message: Message) => socket.send(JSON.stringify([message]));
    send(fixture(this.dialect === 'alpaca' ? 'alpaca/connected' : 'polygon/connected'));
    socket.on('close', () => {
      if (this.active === socket) this.active = undefined;
    });
    socket.on('message', (data) => {
      const request = JSON.parse(data.toString()) as Message;
      if (this.dialect === 'alpaca') this.alpaca(socket, request, send);
      else this.polygon(socket, request, send);
    });
  }

  private alpaca(socket: WebSocket, request: Message, send: (message: Message) => void): void {
    if (request.action === 'auth') {
      if (request.key !== this.options.key || request.secret !== this.options.secret) {
        send(fixture('alpaca/auth-failed'));
        socket.close();
      } else if (this.active !== undefined) {
        send(fixture('alpaca/connection-limit'));
        socket.close();
      } else {
        this.active = socket;
        send(fixture('alpaca/authenticated'));
      }
      return;
    }
    if (request.action === 'subscribe') {
      const trades = (request.trades as string[]) ?? [];
      if (trades.length > (this.options.symbolLimit ?? Number.POSITIVE_INFINITY)) {
        send(fixture('alpaca/symbol-limit'));
        return;
      }
      send({ ...fixture('alpaca/subscription'), trades, corrections: trades, cancelErrors: trades });
      this.acknowledge(trades);
    }
  }

  private polygon(socket: WebSocket, request: Message, send: (message: Message) => void): void {
    if (request.action === 'auth') {
      if (request.params !== this.options.key) {
        send(fixture('polygon/auth-failed'));
        socket.close();
        return;
      }
      // One connection per cluster: the new one takes it and the old one is told and closed.
      const previous = this.active;
      if (previous !== undefined) {
        previous.send(JSON.stringify([fixture('polygon/max-connections')]));
        previous.close();
      }
      this.active = socket;
      send(fixture('polygon/auth-success'));
      return;
    }
    if (request.action === 'subscribe') {
      const channels = String(request.params).split(',');
      for (const channel of channels) {
        send({ ...fixture('polygon/subscribed'), message: `subscribed to: ${channel}` });
      }
      this.acknowledge(channels.map((channel) => channel.replace(/^T\./, '')));
    }
  }

  private acknowledge(symbols: string[]): void {
    this.subscriptions.push(symbols);
    for (const resolve of this.subscribers) resolve();
    this.subscribers.clear();
  }

  private rest(path: string, response: import('node:http').ServerResponse): void {
    const url = new URL(path, this.restUrl);
    let body: unknown;
    if (this.dialect === 'alpaca' && url.pathname === '/v2/stocks/trades') {
      const symbols = (url.searchParams.get('symbols') ?? '').split(',');
      const start = Date.parse(url.searchParams.get('start') ?? '');
      const end = Date.parse(url.searchParams.get('end') ?? '');
      const trades: Record<string, Message[]> = {};
      for (const message of this.printed) {
        const at = Date.parse(String(message.t));
        if (!symbols.includes(String(message.S)) || at < start || at >= end) continue;
        const { T: _type, S: symbol, ...rest } = message;
        const list = trades[String(symbol)] ?? [];
        list.push(rest);
        trades[String(symbol)] = list;
      }
      body = { trades, next_page_token: null };
    } else if (this.dialect === 'polygon' && url.pathname.startsWith('/v3/trades/')) {
      const symbol = decodeURIComponent(url.pathname.slice('/v3/trades/'.length));
      const gte = Number(url.searchParams.get('timestamp.gte')) / 1e6;
      const lt = Number(url.searchParams.get('timestamp.lt')) / 1e6;
      const template = fixture('polygon/rest-trades') as { results: Message[] };
      body = {
        ...template,
        next_url: null,
        results: this.printed
          .filter((message) => message.sym === symbol && Number(message.t) >= gte && Number(message.t) < lt)
          .map((message) => ({
            ...template.results[0],
            conditions: message.c,
            exchange: message.x,
            id: message.i,
            price: message.p,
            size: message.s,
            sequence_number: message.q,
            sip_timestamp: Number(message.t) * 1e6,
          })),
      };
    } else {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  }
}

/** An Alpaca trade message (the documented example, with the fields a test sets). */
export function alpacaTrade(
  symbol: string,
  id: number,
  atMs: number,
  price: number,
  conditions = ['@'],
): Message {
  return {
    ...fixture('alpaca/trade'),
    S: symbol,
    i: id,
    t: new Date(atMs).toISOString(),
    p: price,
    s: 100,
    c: conditions,
  };
}

/**
 * Alpaca's cancel or error of a trade it printed (`T: "x"`, the documented example's fields): it names the
 * trade by exchange and id, and carries its price, size and time.
 */
export function alpacaCancel(trade: Message, action: 'C' | 'E' = 'C'): Message {
  return {
    ...fixture('alpaca/cancel'),
    S: trade.S,
    i: trade.i,
    x: trade.x,
    p: trade.p,
    s: trade.s,
    a: action,
    z: trade.z,
    t: trade.t,
  };
}

/**
 * Alpaca's correction of a trade it printed (`T: "c"`, the documented example's fields): the original's id,
 * price, size and conditions (`oi`, `op`, `os`, `oc`) and the corrected ones (`ci`, `cp`, `cs`, `cc`).
 */
export function alpacaCorrection(
  trade: Message,
  corrected: { id: number; price: number; size: number; conditions?: string[] },
): Message {
  return {
    ...fixture('alpaca/correction'),
    S: trade.S,
    x: trade.x,
    oi: trade.i,
    op: trade.p,
    os: trade.s,
    oc: trade.c,
    ci: corrected.id,
    cp: corrected.price,
    cs: corrected.size,
    cc: corrected.conditions ?? ['@'],
    z: trade.z,
    t: trade.t,
  };
}

/** A Polygon stock trade event (the documented example, with the fields a test sets). */
export function polygonTrade(
  symbol: string,
  id: number,
  atMs: number,
  price: number,
  conditions = [0],
): Message {
  return {
    ...fixture('polygon/stock-trade'),
    sym: symbol,
    i: String(id),
    t: atMs,
    p: price,
    s: 100,
    c: conditions,
    q: id,
  };
}
