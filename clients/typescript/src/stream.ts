import { type BackoffOptions, backoffDelay, sleep } from './backoff.ts';
import {
  CHANNEL_NAMES,
  type ChannelName,
  CLOSE_CODES,
  type ErrorReply,
  type InForceAlert,
  type PriceItem,
  type QuotesBatchPush,
  type SimultaneousBreak,
  type StateSnapshot,
  type SubscribedReply,
  type Topic,
  type WS_ERROR_CODES,
} from './contracts.ts';

type WsErrorCode = (typeof WS_ERROR_CODES)[number];

import { Emitter } from './emitter.ts';
import { MarketDataError } from './errors.ts';
import type { RestResponse } from './rest.ts';

/**
 * The WebSocket stream client (docs/websocket.md): connects with the key, keeps the subscriptions asked for,
 * types each channel's pushes, pings and watches for silence, reconnects with backoff and jitter after a
 * drop (never after 4401, 4403 or 4409 unless asked), subscribes again, and catches the alert and break
 * channels up over REST by `since_id`, so each alert and break is delivered once, in id order, across drops.
 */

/** The subprotocol the service answers with when the key travels as a subprotocol. */
export const STREAM_SUBPROTOCOL = 'market-data.v1';
/** The prefix of the subprotocol entry carrying the key (browsers cannot set handshake headers). */
export const KEY_SUBPROTOCOL_PREFIX = 'key.';

/** Codes after which reconnecting cannot help or would evict a newer client (docs/websocket.md#close-codes). */
export const FINAL_CLOSE_CODES: readonly number[] = [
  CLOSE_CODES.noValidKey,
  CLOSE_CODES.forbidden,
  CLOSE_CODES.replaced,
];

/** The part of a WebSocket the client uses: the browser's, Node's global one and the `ws` package's all fit. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  // biome-ignore lint/suspicious/noExplicitAny: each implementation types its events its own way
  addEventListener(type: string, listener: (event: any) => void): void;
  /** `ws` only: drops the socket at once, without a closing handshake. */
  terminate?: () => void;
}

// biome-ignore lint/suspicious/noExplicitAny: constructors differ in their second parameter
export type WebSocketConstructor = new (...args: any[]) => WebSocketLike;

export type StreamAuth = 'header' | 'subprotocol';

/**
 * What `StreamError.code` can be: the service's WebSocket error codes (docs/websocket.md#error-codes), or the
 * library's own: `closed` (a final close, or the stream closed), `reconnect_failed`, `invalid_message`.
 */
export type StreamErrorCode = WsErrorCode | 'closed' | 'reconnect_failed' | 'invalid_message';

/** A refused WebSocket operation (docs/websocket.md#error-codes), or a close that ends the stream. */
export class StreamError extends Error {
  override readonly name = 'StreamError';

  constructor(
    readonly code: StreamErrorCode,
    message: string,
    readonly details: { closeCode?: number; reply?: ErrorReply } = {},
  ) {
    super(message);
  }
}

/** The stream's events by name: `on` accepts only these names. */
export interface StreamEvents {
  quote: PriceItem;
  state: StateSnapshot;
  alert: InForceAlert;
  break: SimultaneousBreak;
  open: { reconnected: boolean };
  subscribed: SubscribedReply;
  close: { code: number; reason: string; willReconnect: boolean };
  reconnecting: { attempt: number; delayMs: number };
  error: Error;
}

/** One page of an event feed after `sinceId`, for catching up (the REST alert routes). */
export type CatchUpReader<Item> = (
  sinceId: number | undefined,
  symbols: readonly string[] | undefined,
  signal: AbortSignal,
) => Promise<RestResponse<{ items: Item[] }>>;

export interface StreamOptions {
  /**
   * After a reconnect, fetch the alerts and breaks missed over REST by `since_id` (default true). Off, the
   * stream only drops repeated ids.
   */
  readonly catchUp?: boolean;
  /** Resume the alert feed after this id: the first connection catches up from it too. */
  readonly alertsSinceId?: number;
  /** Resume the break feed after this id. */
  readonly breaksSinceId?: number;
  /** Waits between reconnection attempts (defaults: 1 s doubling up to 30 s, with jitter). */
  readonly reconnect?: BackoffOptions & { readonly maxAttempts?: number };
  /** Close codes after which to reconnect all the same (by default 4401, 4403 and 4409 end the stream). */
  readonly reconnectAfter?: readonly number[];
  /** A `ping` every this many ms (default 60,000); 0 turns pings off. */
  readonly pingIntervalMs?: number;
  /** A ping unanswered this long means a dead connection (default 10,000 ms). */
  readonly pongTimeoutMs?: number;
  /** Nothing received this long means a dead connection (default 300,000 ms: docs/websocket.md#heartbeats-and-connection-lifetime). */
  readonly silenceTimeoutMs?: number;
  /** How the key travels: `header` (X-API-Key, for `ws`) or `subprotocol` (browsers). Default: by implementation. */
  readonly auth?: StreamAuth;
}

export interface StreamDependencies {
  readonly url: string;
  readonly apiKey: string;
  readonly WebSocket: WebSocketConstructor;
  readonly alerts: CatchUpReader<InForceAlert>;
  readonly breaks: CatchUpReader<SimultaneousBreak>;
  /** A feed's newest id (0 when empty), in one request (`since_id=latest`). */
  readonly head: (feed: Feed, signal: AbortSignal) => Promise<number>;
  readonly random?: () => number;
}

export type Feed = 'alerts' | 'breaks';
const FEED_CHANNEL: Record<Feed, ChannelName> = {
  alerts: 'alerts.in_force',
  breaks: 'alerts.simultaneous_breaks',
};
const OPEN = 1;
const MAX_SYMBOLS_PER_TOPIC = 250;
/** Catching up reads the widest window the service allows (docs/partner-guide.md#limits-and-throttling). */
export const CATCH_UP_PAGE_LIMIT = 1000;

interface Subscription {
  every: boolean;
  readonly symbols: Set<string>;
}

interface FeedState<Item extends { id: number }> {
  /** The highest id delivered (or the id to resume after, given as `alertsSinceId` / `breaksSinceId`). */
  lastId: number | undefined;
  /**
   * On a fresh stream, the feed's head found once it subscribed: where catching up starts after a drop if
   * nothing was delivered yet. Pushes are never compared with it (one after `subscribed` may be at or below it).
   */
  head: number | undefined;
  /** Set by each (re)connection: the next `subscribed` covering the feed catches it up. */
  needsSync: boolean;
  syncing: boolean;
  buffer: Item[];
}

/** Whether an implementation can send handshake headers: the `ws` package can (its sockets have `ping`). */
function supportsHeaders(Impl: WebSocketConstructor): boolean {
  return typeof (Impl.prototype as { ping?: unknown } | undefined)?.ping === 'function';
}

export class MarketDataStream {
  private readonly events = new Emitter<StreamEvents>();
  private readonly subscriptions = new Map<ChannelName, Subscription>();
  private readonly feeds: { alerts: FeedState<InForceAlert>; breaks: FeedState<SimultaneousBreak> };
  private readonly pendingFeedSubscribes = new Map<number, Feed[]>();
  private socket: WebSocketLike | undefined;
  private attempt = 0;
  private connections = 0;
  private nextRequestId = 1;
  private stopped = false;
  private closeRequested = false;
  private pingTimer: ReturnType<typeof setInterval> | undefined;
  private pongTimer: ReturnType<typeof setTimeout> | undefined;
  private silenceTimer: ReturnType<typeof setTimeout> | undefined;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly aborts = new AbortController();
  private closed: Promise<void>;
  private resolveClosed: () => void = () => {};
  /** Repeated alert and break pushes dropped (delivery is at least once: docs/websocket.md#delivery). */
  duplicatesDropped = 0;

  constructor(
    private readonly deps: StreamDependencies,
    private readonly options: StreamOptions = {},
  ) {
    this.feeds = {
      alerts: { lastId: options.alertsSinceId, head: undefined, needsSync: true, syncing: false, buffer: [] },
      breaks: { lastId: options.breaksSinceId, head: undefined, needsSync: true, syncing: false, buffer: [] },
    };
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
    this.connect();
  }

  on<Name extends keyof StreamEvents>(
    name: Name,
    listener: (payload: StreamEvents[Name]) => void,
  ): () => void {
    return this.events.on(name, listener);
  }

  /** Adds a subscription; kept across reconnections. Alert channels without symbols mean every symbol. */
  subscribe(channel: ChannelName, symbols?: readonly string[]): void {
    assertChannel(channel);
    const subscription = this.subscriptions.get(channel) ?? { every: false, symbols: new Set<string>() };
    if (!symbols || symbols.length === 0) subscription.every = true;
    for (const symbol of symbols ?? []) subscription.symbols.add(symbol.trim().toUpperCase());
    this.subscriptions.set(channel, subscription);
    this.sendTopics('subscribe', topicsOf(channel, symbols));
  }

  /** Removes symbols of a channel, or the whole channel without symbols. */
  unsubscribe(channel: ChannelName, symbols?: readonly string[]): void {
    assertChannel(channel);
    const subscription = this.subscriptions.get(channel);
    if (!symbols || symbols.length === 0) this.subscriptions.delete(channel);
    else for (const symbol of symbols) subscription?.symbols.delete(symbol.trim().toUpperCase());
    this.sendTopics('unsubscribe', topicsOf(channel, symbols));
  }

  /** The highest alert and break ids delivered: pass them as `alertsSinceId` / `breaksSinceId` to resume. */
  get position(): { alertsSinceId?: number; breaksSinceId?: number } {
    return {
      alertsSinceId: this.feeds.alerts.lastId ?? this.feeds.alerts.head,
      breaksSinceId: this.feeds.breaks.lastId ?? this.feeds.breaks.head,
    };
  }

  /** Closes the connection for good; resolves once it is closed. */
  async close(): Promise<void> {
    this.closeRequested = true;
    this.aborts.abort(new StreamError('closed', 'the stream was closed'));
    const socket = this.socket;
    if (socket && socket.readyState <= OPEN) socket.close(1000, 'client closed');
    else this.finish({ code: 1000, reason: 'client closed' });
    await this.closed;
  }

  private connect(): void {
    const { url, apiKey, WebSocket: Impl } = this.deps;
    const auth = this.options.auth ?? (supportsHeaders(Impl) ? 'header' : 'subprotocol');
    let socket: WebSocketLike;
    try {
      socket =
        auth === 'header'
          ? new Impl(url, { headers: { 'X-API-Key': apiKey } })
          : new Impl(url, [STREAM_SUBPROTOCOL, `${KEY_SUBPROTOCOL_PREFIX}${apiKey}`]);
    } catch (error) {
      this.emitError(error);
      this.scheduleReconnect({ code: 1006, reason: 'could not connect' });
      return;
    }
    this.socket = socket;
    let handshakeStatus: number | undefined;
    let closeCode: number | undefined;
    let closeReason = '';
    socket.addEventListener('open', () => {
      if (this.socket !== socket) return;
      const reconnected = this.connections++ > 0;
      this.pendingFeedSubscribes.clear();
      this.feeds.alerts.needsSync = true;
      this.feeds.breaks.needsSync = true;
      this.startTimers(socket);
      this.events.emit('open', { reconnected }, (error) => this.emitError(error));
      this.sendAll();
    });
    socket.addEventListener('message', (event: { data: unknown }) => {
      if (this.socket !== socket) return;
      // The backoff starts over only once the server has answered: a server that accepts and drops at once
      // keeps the waits growing (no reconnect storm).
      this.attempt = 0;
      this.resetSilence(socket);
      const message = parse(event.data);
      if (!message) {
        this.emitError(new StreamError('invalid_message', 'the server sent a message that is not JSON'));
        return;
      }
      if (message.op === 'close' && typeof message.code === 'number') {
        // AWS cannot send a close code: this message stands for it (docs/websocket.md#close-codes).
        closeCode = message.code;
        closeReason = String(message.reason ?? '');
        this.drop(socket, closeCode, closeReason);
        return;
      }
      this.dispatch(message);
    });
    socket.addEventListener('error', (event: { message?: string; error?: unknown }) => {
      // `ws` reports a refused upgrade as "Unexpected server response: 401" (AWS refuses handshakes so).
      const text = event.message ?? (event.error instanceof Error ? event.error.message : '');
      const status = /Unexpected server response: (\d{3})/.exec(text)?.[1];
      if (status) handshakeStatus = Number(status);
    });
    socket.addEventListener('close', (event: { code: number; reason?: string }) => {
      if (this.socket !== socket) return;
      const code = closeCode ?? handshakeCode(handshakeStatus) ?? event.code;
      this.onClosed(code, closeCode !== undefined ? closeReason : String(event.reason ?? ''));
    });
  }

  /** Abandons a socket now (a dead or told-to-close one) and handles its end without waiting for it. */
  private drop(socket: WebSocketLike, code: number, reason: string): void {
    if (this.socket !== socket) return;
    this.socket = undefined;
    try {
      if (socket.terminate) socket.terminate();
      else socket.close(4000, reason.slice(0, 100));
    } catch {
      // Already closed.
    }
    this.onClosed(code, reason);
  }

  private onClosed(code: number, reason: string): void {
    this.socket = undefined;
    this.stopTimers();
    if (this.closeRequested) {
      this.finish({ code, reason });
      return;
    }
    const final = FINAL_CLOSE_CODES.includes(code) && !(this.options.reconnectAfter ?? []).includes(code);
    if (final) {
      this.emitError(new StreamError('closed', `closed with ${code}: ${reason}`, { closeCode: code }));
      this.finish({ code, reason });
      return;
    }
    this.scheduleReconnect({ code, reason });
  }

  private scheduleReconnect({ code, reason }: { code: number; reason: string }): void {
    const maxAttempts = this.options.reconnect?.maxAttempts ?? Number.POSITIVE_INFINITY;
    if (this.attempt >= maxAttempts) {
      this.emitError(
        new StreamError('reconnect_failed', `gave up after ${this.attempt} reconnection attempts`),
      );
      this.finish({ code, reason });
      return;
    }
    const delayMs = backoffDelay(this.attempt, this.options.reconnect, this.deps.random);
    this.attempt++;
    this.events.emit('close', { code, reason, willReconnect: true }, (error) => this.emitError(error));
    this.events.emit('reconnecting', { attempt: this.attempt, delayMs }, (error) => this.emitError(error));
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (!this.closeRequested) this.connect();
    }, delayMs);
  }

  private finish({ code, reason }: { code: number; reason: string }): void {
    if (this.stopped) return;
    this.stopped = true;
    this.stopTimers();
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.events.emit('close', { code, reason, willReconnect: false }, (error) => this.emitError(error));
    this.resolveClosed();
  }

  private startTimers(socket: WebSocketLike): void {
    this.resetSilence(socket);
    const pingEvery = this.options.pingIntervalMs ?? 60_000;
    if (pingEvery > 0) {
      this.pingTimer = setInterval(() => {
        if (this.pongTimer) return;
        this.send({ op: 'ping', id: `ping-${this.nextRequestId++}` });
        this.pongTimer = setTimeout(
          () => this.drop(socket, 4000, 'ping unanswered'),
          this.options.pongTimeoutMs ?? 10_000,
        );
      }, pingEvery);
    }
  }

  private resetSilence(socket: WebSocketLike): void {
    if (this.silenceTimer) clearTimeout(this.silenceTimer);
    this.silenceTimer = setTimeout(
      () => this.drop(socket, 4000, 'nothing received'),
      this.options.silenceTimeoutMs ?? 300_000,
    );
  }

  private stopTimers(): void {
    if (this.pingTimer) clearInterval(this.pingTimer);
    if (this.pongTimer) clearTimeout(this.pongTimer);
    if (this.silenceTimer) clearTimeout(this.silenceTimer);
    this.pingTimer = this.pongTimer = this.silenceTimer = undefined;
  }

  private send(message: Record<string, unknown>): boolean {
    const socket = this.socket;
    if (!socket || socket.readyState !== OPEN) return false;
    socket.send(JSON.stringify(message));
    return true;
  }

  private sendTopics(op: 'subscribe' | 'unsubscribe', topics: Topic[]): void {
    const id = this.nextRequestId++;
    if (!this.send({ op, id, topics })) return;
    if (op === 'subscribe') this.trackFeeds(id, topics);
  }

  /** Every subscription again, after a (re)connection. */
  private sendAll(): void {
    const topics = [...this.subscriptions].flatMap(([channel, subscription]) => [
      ...(subscription.every ? topicsOf(channel, undefined) : []),
      ...(subscription.symbols.size > 0 ? topicsOf(channel, [...subscription.symbols]) : []),
    ]);
    for (let start = 0; start < topics.length; start += 20) {
      this.sendTopics('subscribe', topics.slice(start, start + 20));
    }
  }

  private trackFeeds(id: number, topics: readonly Topic[]): void {
    const feeds = (Object.keys(FEED_CHANNEL) as Feed[]).filter((feed) =>
      topics.some((topic) => topic.channel === FEED_CHANNEL[feed]),
    );
    if (feeds.length > 0) this.pendingFeedSubscribes.set(id, feeds);
  }

  private dispatch(message: Record<string, unknown>): void {
    const onListenerError = (error: unknown) => this.emitError(error);
    switch (message.channel) {
      case 'quotes': {
        // A batched frame (`quotesBatch`) carries several quotes; each is its own event, in the frame's order.
        const data = message.data as PriceItem | QuotesBatchPush['data'];
        for (const quote of 'items' in data ? data.items : [data])
          this.events.emit('quote', quote, onListenerError);
        return;
      }
      case 'states':
        this.events.emit('state', message.data as StateSnapshot, onListenerError);
        return;
      case 'alerts.in_force':
        this.receive('alerts', message.data as InForceAlert);
        return;
      case 'alerts.simultaneous_breaks':
        this.receive('breaks', message.data as SimultaneousBreak);
        return;
    }
    switch (message.op) {
      case 'pong':
        if (this.pongTimer) clearTimeout(this.pongTimer);
        this.pongTimer = undefined;
        return;
      case 'subscribed': {
        const reply = message as unknown as SubscribedReply;
        this.events.emit('subscribed', reply, onListenerError);
        const feeds = typeof reply.id === 'number' ? this.pendingFeedSubscribes.get(reply.id) : undefined;
        if (typeof reply.id === 'number') this.pendingFeedSubscribes.delete(reply.id);
        // Only the feeds the server accepted (a refused topic, say for a missing scope, has nothing to catch up).
        const accepted = (feeds ?? []).filter((feed) =>
          reply.topics.some((topic) => topic.channel === FEED_CHANNEL[feed]),
        );
        for (const feed of accepted) void this.sync(feed);
        return;
      }
      case 'error': {
        const reply = message as unknown as ErrorReply;
        this.emitError(new StreamError(reply.error.code as WsErrorCode, reply.error.message, { reply }));
        return;
      }
    }
  }

  private receive(feed: 'alerts', item: InForceAlert): void;
  private receive(feed: 'breaks', item: SimultaneousBreak): void;
  private receive(feed: Feed, item: InForceAlert | SimultaneousBreak): void {
    const state = this.feeds[feed] as FeedState<{ id: number }>;
    if (state.syncing) {
      state.buffer.push(item);
      return;
    }
    this.deliver(feed, item);
  }

  /** Delivers an event once: ids at or below the last delivered are repeats. */
  private deliver(feed: Feed, item: InForceAlert | SimultaneousBreak): void {
    const state = this.feeds[feed] as FeedState<{ id: number }>;
    if (state.lastId !== undefined && item.id <= state.lastId) {
      this.duplicatesDropped++;
      return;
    }
    state.lastId = item.id;
    const onListenerError = (error: unknown) => this.emitError(error);
    if (feed === 'alerts') this.events.emit('alert', item as InForceAlert, onListenerError);
    else this.events.emit('break', item as SimultaneousBreak, onListenerError);
  }

  /**
   * After a (re)subscription to a feed: reads it over REST from the last delivered id and delivers what the
   * connection missed, holding back pushes meanwhile; then delivers the held pushes not already delivered.
   * Without a last id (a fresh stream) it only finds the feed's head in one request, for catching up after a
   * drop; every push after `subscribed` is delivered, whatever its id against that head.
   */
  private async sync(feed: Feed): Promise<void> {
    const state = this.feeds[feed] as FeedState<{ id: number }>;
    if (!state.needsSync || state.syncing || this.options.catchUp === false) return;
    state.needsSync = false;
    state.syncing = true;
    for (let attempt = 0; ; attempt++) {
      try {
        await this.readMissed(feed, state);
        break;
      } catch (error) {
        if (this.closeRequested) break;
        this.emitError(error);
        if (error instanceof MarketDataError && !error.retryable) {
          // The same read cannot succeed (a key without alerts:read): pushes go on, the next
          // (re)subscription tries again.
          state.needsSync = true;
          break;
        }
        // Pushes stay held back while the read is retried, so none is delivered past a missed event.
        try {
          await sleep(backoffDelay(attempt, this.options.reconnect, this.deps.random), this.aborts.signal);
        } catch {
          break;
        }
      }
    }
    state.syncing = false;
    const held = state.buffer.sort((a, b) => a.id - b.id);
    state.buffer = [];
    for (const item of held) this.deliver(feed, item as InForceAlert);
  }

  /** Reads the feed from the last delivered id (or the head found), delivering each event; a fresh stream finds the head. */
  private async readMissed(feed: Feed, state: FeedState<{ id: number }>): Promise<void> {
    const from = state.lastId ?? state.head;
    if (from === undefined) {
      state.head = await this.deps.head(feed, this.aborts.signal);
      return;
    }
    let sinceId: number = from;
    const read = (feed === 'alerts' ? this.deps.alerts : this.deps.breaks) as CatchUpReader<{ id: number }>;
    const subscription = this.subscriptions.get(FEED_CHANNEL[feed]);
    const symbols = subscription && !subscription.every ? [...subscription.symbols] : undefined;
    for (;;) {
      const page = await read(sinceId, feed === 'alerts' ? symbols : undefined, this.aborts.signal);
      const before: number = sinceId;
      for (const item of page.body.items) {
        if (item.id <= sinceId) continue;
        sinceId = item.id;
        if (feed === 'breaks' && symbols && !brokeAny(item as SimultaneousBreak, symbols)) continue;
        this.deliver(feed, item as InForceAlert);
      }
      if (page.nextSinceId !== undefined && page.nextSinceId > sinceId) sinceId = page.nextSinceId;
      if (sinceId === before) break;
    }
  }

  private emitError(error: unknown): void {
    this.events.emit('error', error instanceof Error ? error : new Error(String(error)));
  }
}

function assertChannel(channel: string): asserts channel is ChannelName {
  if (!(CHANNEL_NAMES as readonly string[]).includes(channel)) {
    throw new TypeError(`unknown channel ${channel}: one of ${CHANNEL_NAMES.join(', ')}`);
  }
}

/**
 * A channel's topics, at most 250 symbols each. Quotes are subscribed batched
 * (docs/websocket.md#batched-quotes): fewer frames for the same quotes, each still emitted as its own `quote`
 * event.
 */
function topicsOf(channel: ChannelName, symbols: readonly string[] | undefined): Topic[] {
  if (!symbols || symbols.length === 0) return [{ channel }];
  const batch = channel === 'quotes' ? { batch: true } : {};
  const topics: Topic[] = [];
  for (let start = 0; start < symbols.length; start += MAX_SYMBOLS_PER_TOPIC) {
    topics.push({ channel, symbols: symbols.slice(start, start + MAX_SYMBOLS_PER_TOPIC), ...batch });
  }
  return topics;
}

function brokeAny(event: SimultaneousBreak, symbols: readonly string[]): boolean {
  return event.symbols.some((symbol) => symbols.includes(symbol));
}

function handshakeCode(status: number | undefined): number | undefined {
  if (status === 401) return CLOSE_CODES.noValidKey;
  if (status === 403) return CLOSE_CODES.forbidden;
  return undefined;
}

const decoder = new TextDecoder();

function parse(data: unknown): Record<string, unknown> | undefined {
  let text: string;
  if (typeof data === 'string') text = data;
  else if (data instanceof ArrayBuffer) text = decoder.decode(data);
  else if (ArrayBuffer.isView(data))
    text = decoder.decode(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  else return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
