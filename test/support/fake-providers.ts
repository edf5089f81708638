/**
 * Local fakes of the providers' protocols (docs/data-sources.md), real servers on free ports: a WebSocket
 * endpoint speaking the documented handshake and messages (test/fixtures/providers/), and the REST trades
 * endpoint serving every trade the fake "printed", whether or not a client was connected to receive it.
 *
 * As the providers behave: REST pages as small as a test likes (Alpaca's opaque `next_page_token`, Massive's
 * `next_url` with a cursor), Massive's SIP times in nanoseconds written as JSON integers, TRF ids; and their
 * faults on demand: a page answered 429 with `Retry-After`, 5xx for good, a redirect, a `next_url` naming
 * another host, a half-open connection (no reading, no writing, no FIN), a kick sent before a close.
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
  /** Most trades per REST page, whatever `limit` asks (default: as asked). */
  readonly restPageSize?: number;
  /** Massive: the origin its `next_url` names (default: its own), as a hostile or misconfigured server. */
  readonly nextUrlOrigin?: string;
  /** A flapping server: closes each connection this long after acknowledging its subscription. */
  readonly closeAfterSubscribeMs?: number;
}

/** A REST page answered with an error instead (page 1 is a fill's first request). */
export interface RestFault {
  readonly page: number;
  readonly status: number;
  /** The `Retry-After` header, as sent. */
  readonly retryAfter?: string;
  /** The `Location` header (a redirect). */
  readonly location?: string;
  /** How many times (default 1; Infinity: for good). */
  times?: number;
  /** Massive: only this ticker's fill. */
  readonly symbol?: string;
}

/** A Massive stock trade's SIP time in Unix ns (a bigint), kept out of the WebSocket frame (symbol keys are). */
export const SIP_NANOS = Symbol('sipNanos');

export class FakeProvider {
  /** Connections accepted, over the fake's life. */
  connections = 0;
  /** Every subscription request: the symbols asked for. */
  readonly subscriptions: string[][] = [];
  /** Every trade message printed, in order (the REST endpoint's history). */
  readonly printed: Message[] = [];
  /** Every REST request: its URL and Authorization header. */
  readonly restRequests: { url: string; authorization: string | undefined }[] = [];
  /** Pings received from clients. */
  pings = 0;
  private readonly restFaults: RestFault[] = [];
  private active: WebSocket | undefined;
  private halfOpen: WebSocket | undefined;
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
    http.on('request', (request, response) => {
      fake.restRequests.push({ url: request.url ?? '/', authorization: request.headers.authorization });
      fake.rest(request.url ?? '/', response);
    });
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
    if (this.active?.readyState === WebSocket.OPEN && this.active !== this.halfOpen) {
      this.active.send(JSON.stringify(messages));
    }
  }

  /** Answers REST pages with an error (see RestFault). */
  failRest(fault: RestFault): void {
    this.restFaults.push({ ...fault, times: fault.times ?? 1 });
  }

  /**
   * The connection goes half-open, as when the network path dies: the server neither reads (so it answers
   * no ping and no close frame) nor writes, and sends no FIN.
   */
  goHalfOpen(): void {
    this.halfOpen = this.active;
    this.active?.pause();
  }

  /** Sends messages (a kick: Massive's max_connections, Alpaca's 406 or 407), then closes the connection. */
  sendThenClose(messages: readonly Message[]): void {
    this.active?.send(JSON.stringify(messages));
    this.active?.close();
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
    this.http.closeAllConnections();
    for (const client of this.wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  private accept(socket: WebSocket): void {
    this.connections++;
    const send = (message: Message) => socket.send(JSON.stringify([message]));
    send(fixture(this.dialect === 'alpaca' ? 'alpaca/connected' : 'polygon/connected'));
    socket.on('ping', () => this.pings++);
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
    const flapAfterMs = this.options.closeAfterSubscribeMs;
    const socket = this.active;
    if (flapAfterMs !== undefined && socket !== undefined) setTimeout(() => socket.close(), flapAfterMs);
    this.subscriptions.push(symbols);
    for (const resolve of this.subscribers) resolve();
    this.subscribers.clear();
  }

  private rest(path: string, response: import('node:http').ServerResponse): void {
    const url = new URL(path, this.restUrl);
    const answer =
      this.dialect === 'alpaca' && url.pathname === '/v2/stocks/trades'
        ? this.alpacaTrades(url)
        : this.dialect === 'polygon' && url.pathname.startsWith('/v3/trades/')
          ? this.polygonTrades(url)
          : undefined;
    if (answer === undefined) {
      response.writeHead(404).end();
      return;
    }
    const fault = this.restFaults.find(
      (candidate) =>
        candidate.page === answer.page &&
        (candidate.times ?? 0) > 0 &&
        (candidate.symbol === undefined || candidate.symbol === answer.symbol),
    );
    if (fault !== undefined) {
      fault.times = (fault.times ?? 1) - 1;
      const headers = {
        ...(fault.retryAfter === undefined ? {} : { 'retry-after': fault.retryAfter }),
        ...(fault.location === undefined ? {} : { location: fault.location }),
      };
      response.writeHead(fault.status, headers).end('{"message":"fault"}');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(jsonWithBigInts(answer.body));
  }

  private pageOf<T>(list: readonly T[], offset: number, limit: number) {
    const size = Math.min(limit, this.options.restPageSize ?? limit);
    const next = offset + size < list.length ? offset + size : undefined;
    return { items: list.slice(offset, offset + size), next, page: Math.floor(offset / size) + 1 };
  }

  /** GET /v2/stocks/trades: by symbol then time, paged by an opaque next_page_token. */
  private alpacaTrades(url: URL) {
    const symbols = (url.searchParams.get('symbols') ?? '').split(',');
    const start = Date.parse(url.searchParams.get('start') ?? '');
    const end = Date.parse(url.searchParams.get('end') ?? '');
    const matching = this.printed
      .filter((message) => {
        const at = Date.parse(String(message.t));
        return symbols.includes(String(message.S)) && at >= start && at < end;
      })
      .sort((a, b) => String(a.S).localeCompare(String(b.S)));
    const token = url.searchParams.get('page_token');
    const offset = token === null ? 0 : Number(Buffer.from(token, 'base64url').toString());
    const { items, next, page } = this.pageOf(
      matching,
      offset,
      Number(url.searchParams.get('limit') ?? 1000),
    );
    const trades: Record<string, Message[]> = {};
    for (const message of items) {
      const { T: _type, S: symbol, ...rest } = message;
      const list = trades[String(symbol)] ?? [];
      list.push(rest);
      trades[String(symbol)] = list;
    }
    const nextToken = next === undefined ? null : Buffer.from(String(next)).toString('base64url');
    return { page, symbol: undefined, body: { trades, next_page_token: nextToken } };
  }

  /** GET /v3/trades/{ticker}: nanosecond times, paged by a `next_url` holding a cursor. */
  private polygonTrades(url: URL) {
    const symbol = decodeURIComponent(url.pathname.slice('/v3/trades/'.length));
    const cursor = url.searchParams.get('cursor');
    const query: { gte: string; lt: string; limit: number; offset: number } =
      cursor === null
        ? {
            gte: url.searchParams.get('timestamp.gte') ?? '0',
            lt: url.searchParams.get('timestamp.lt') ?? '0',
            limit: Number(url.searchParams.get('limit') ?? 1000),
            offset: 0,
          }
        : JSON.parse(Buffer.from(cursor, 'base64url').toString());
    const template = fixture('polygon/rest-trades') as { results: Message[] };
    const matching = this.printed.filter((message) => {
      const nanos = sipNanosOf(message);
      return message.sym === symbol && nanos >= BigInt(query.gte) && nanos < BigInt(query.lt);
    });
    const { items, next, page } = this.pageOf(matching, query.offset, query.limit);
    const nextCursor = Buffer.from(JSON.stringify({ ...query, offset: next })).toString('base64url');
    const origin = this.options.nextUrlOrigin ?? this.restUrl;
    const results = items.map((message) => {
      const { trf_id: _none, ...result } = template.results[0] as Message;
      return {
        ...result,
        conditions: message.c,
        exchange: message.x,
        id: message.i,
        ...(message.trfi === undefined ? {} : { trf_id: message.trfi }),
        price: message.p,
        size: message.s,
        sequence_number: message.q,
        sip_timestamp: sipNanosOf(message),
      };
    });
    const nextUrl =
      next === undefined ? null : `${origin}/v3/trades/${encodeURIComponent(symbol)}?cursor=${nextCursor}`;
    return { page, symbol, body: { ...template, next_url: nextUrl, results } };
  }
}

/** A printed Massive trade's SIP time in ns: its own when a test set one, else its `t` (ms). */
function sipNanosOf(message: Message): bigint {
  const nanos = (message as { [SIP_NANOS]?: bigint })[SIP_NANOS];
  return nanos ?? BigInt(Number(message.t)) * 1_000_000n;
}

/** JSON with bigints written as integers, as the providers' nanosecond fields are. */
function jsonWithBigInts(value: unknown): string {
  return JSON.stringify(value, (_key, item) => (typeof item === 'bigint' ? `#bigint#${item}` : item)).replace(
    /"#bigint#(-?\d+)"/g,
    '$1',
  );
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
