/**
 * A minimal stand-in for `@market-data-alerts/client` (clients/typescript): the calls of the agreed client
 * API the console uses, with the same names, arguments and events, on the browser's `fetch` and
 * `WebSocket`. The console reaches it only through data.ts; once the client library is in the repository,
 * data.ts imports from it instead and this file goes (docs/console.md#data-access).
 */
import type {
  Candles,
  InForceAlert,
  Instrument,
  MarketStatus,
  PriceItem,
  SetupRow,
  SimultaneousBreak,
  StateSnapshot,
} from './types.ts';

export interface ClientOptions {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly wsUrl?: string;
  readonly fetch?: typeof fetch;
  readonly WebSocket?: typeof WebSocket;
}

/** An error answer of the API: its HTTP status and the envelope's code (docs/partner-guide.md#errors). */
export class MarketDataError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'MarketDataError';
  }
}

type Query = Record<string, string | number | readonly string[] | undefined>;

export type Channel = 'quotes' | 'states' | 'alerts.in_force' | 'alerts.simultaneous_breaks';

export interface StreamEvents {
  quote: PriceItem;
  state: StateSnapshot;
  alert: InForceAlert;
  break: SimultaneousBreak;
  open: undefined;
  close: { code: number; reason: string };
  reconnecting: { attempt: number; delayMs: number };
  error: Error;
}

export interface MarketDataStream {
  subscribe(channel: Channel, symbols?: string[]): void;
  unsubscribe(channel: Channel, symbols?: string[]): void;
  on<E extends keyof StreamEvents>(event: E, listener: (payload: StreamEvents[E]) => void): () => void;
  close(): Promise<void>;
}

const WS_SUBPROTOCOL = 'market-data.v1';
/** The alert routes' largest page (docs/partner-guide.md#get-alertsin-force). */
const CATCH_UP_PAGE = 1000;
/** Close codes after which reconnecting would be refused again or evict a newer connection. */
const FINAL_CLOSE_CODES = new Set([4401, 4403, 4409]);
const EVENT_OF_CHANNEL = {
  quotes: 'quote',
  states: 'state',
  'alerts.in_force': 'alert',
  'alerts.simultaneous_breaks': 'break',
} as const;

function queryString(query: Query): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    params.set(name, Array.isArray(value) ? value.join(',') : String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

function defaultWsUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  return `${url.protocol === 'https:' ? 'wss:' : 'ws:'}//${url.host}/ws/market/v1`;
}

export function createClient(options: ClientOptions) {
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  const base = options.baseUrl.replace(/\/$/, '');

  async function get<T>(path: string, query: Query = {}): Promise<T> {
    const response = await fetchImpl(`${base}${path}${queryString(query)}`, {
      headers: { 'X-API-Key': options.apiKey },
    });
    const text = await response.text();
    if (!response.ok) {
      let code = 'http_error';
      let message = `HTTP ${response.status}`;
      try {
        const envelope = JSON.parse(text) as { error?: { code?: string; message?: string } };
        code = envelope.error?.code ?? code;
        message = envelope.error?.message ?? message;
      } catch {
        // A body that is not the envelope (the unknown-interval 404 has none): the status says it all.
      }
      const retryAfter = Number(response.headers.get('Retry-After'));
      throw new MarketDataError(
        response.status,
        code,
        message,
        Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined,
      );
    }
    return JSON.parse(text) as T;
  }

  const items = <T>(path: string, query: Query) => get<{ items: T[] }>(path, query);
  const path = (symbol: string) => encodeURIComponent(symbol);

  const client = {
    listInstruments: (query: { symbols?: string[]; search?: string; limit?: number } = {}) =>
      items<Instrument>('/instruments', query),
    getInstrument: (symbol: string) => get<Instrument>(`/instruments/${path(symbol)}`),
    getMarketStatus: () => get<MarketStatus>('/market-status'),
    getLatestPrices: (query: { symbols: string[] }) => items<PriceItem>('/prices/latest', query),
    getCandles: (
      symbol: string,
      query: { interval?: string; start?: string; end?: string; limit?: number } = {},
    ) => get<Candles>(`/candles/${path(symbol)}`, query),
    getState: (symbol: string) => get<StateSnapshot>(`/states/${path(symbol)}`),
    getCurrentSetups: (query: { symbols?: string[]; timeframes?: string[]; limit?: number } = {}) =>
      items<SetupRow>('/setups/current', query),
    getInForceAlerts: (query: Query & { since_id?: number } = {}) =>
      items<InForceAlert>('/alerts/in-force', query),
    getSimultaneousBreaks: (query: Query & { since_id?: number } = {}) =>
      items<SimultaneousBreak>('/alerts/simultaneous-breaks', query),
    stream: (streamOptions: { catchUp?: boolean } = {}): MarketDataStream =>
      openStream(options, streamOptions.catchUp ?? true, client),
  };
  return client;
}

export type MarketDataClient = ReturnType<typeof createClient>;

/**
 * The stream: the key offered as a `key.` subprotocol (docs/websocket.md#connecting-from-a-browser),
 * subscriptions kept and sent again after a reconnect, reconnects with exponential backoff and jitter
 * except after 4401, 4403 and 4409, and the alert and break channels caught up over REST by `since_id`
 * after a reconnect, each event emitted once (docs/websocket.md#delivery).
 */
function openStream(options: ClientOptions, catchUp: boolean, client: MarketDataClient): MarketDataStream {
  const WebSocketImpl = options.WebSocket ?? globalThis.WebSocket;
  const url = options.wsUrl ?? defaultWsUrl(options.baseUrl);
  const listeners = new Map<string, Set<(payload: never) => void>>();
  const topics = new Map<Channel, Set<string> | 'all'>();
  const lastId = { alert: 0, break: 0 };
  let socket: WebSocket | undefined;
  let attempt = 0;
  let closedByUser = false;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let connectedOnce = false;
  /**
   * While a catch-up runs, pushed alerts and breaks wait here: one pushed after the reconnect has a higher
   * id than those the catch-up brings, and emitting it first would make them look seen.
   */
  let held: { event: 'alert' | 'break'; payload: InForceAlert | SimultaneousBreak }[] | undefined;

  const emit = <E extends keyof StreamEvents>(event: E, payload: StreamEvents[E]) => {
    for (const listener of listeners.get(event) ?? [])
      (listener as (value: StreamEvents[E]) => void)(payload);
  };
  const emitEvent = (event: 'alert' | 'break', payload: InForceAlert | SimultaneousBreak) => {
    if (payload.id <= lastId[event]) return; // seen already: at-least-once delivery, or caught up
    lastId[event] = payload.id;
    emit(event, payload as never);
  };
  const send = (op: 'subscribe' | 'unsubscribe', channel: Channel, symbols?: string[]) => {
    if (socket?.readyState !== WebSocketImpl.OPEN) return;
    socket.send(JSON.stringify({ op, topics: [symbols?.length ? { channel, symbols } : { channel }] }));
  };

  async function catchUpOverRest() {
    held = [];
    try {
      await fetchMissed();
    } finally {
      const waiting = held;
      held = undefined;
      for (const { event, payload } of waiting.sort((a, b) => a.payload.id - b.payload.id))
        emitEvent(event, payload);
    }
  }

  /** Every alert and break after the last one seen, page by page (no filters: no read bound applies). */
  async function fetchMissed() {
    if (topics.has('alerts.in_force') && lastId.alert > 0) {
      for (let page = CATCH_UP_PAGE; page === CATCH_UP_PAGE; ) {
        const { items } = await client.getInForceAlerts({ since_id: lastId.alert, limit: CATCH_UP_PAGE });
        for (const alert of items) emitEvent('alert', alert);
        page = items.length;
      }
    }
    if (topics.has('alerts.simultaneous_breaks') && lastId.break > 0) {
      for (let page = CATCH_UP_PAGE; page === CATCH_UP_PAGE; ) {
        const { items } = await client.getSimultaneousBreaks({
          since_id: lastId.break,
          limit: CATCH_UP_PAGE,
        });
        for (const found of items) emitEvent('break', found);
        page = items.length;
      }
    }
  }

  function connect() {
    const ws = new WebSocketImpl(url, [WS_SUBPROTOCOL, `key.${options.apiKey}`]);
    socket = ws;
    ws.addEventListener('open', () => {
      attempt = 0;
      for (const [channel, symbols] of topics)
        send('subscribe', channel, symbols === 'all' ? undefined : [...symbols]);
      emit('open', undefined);
      if (connectedOnce && catchUp)
        catchUpOverRest().catch((error: unknown) => emit('error', asError(error)));
      connectedOnce = true;
    });
    ws.addEventListener('message', (message) => {
      let parsed: {
        channel?: string;
        op?: string;
        data?: unknown;
        error?: { code: string; message: string };
      };
      try {
        parsed = JSON.parse(String(message.data));
      } catch {
        emit('error', new Error('the server sent a message that is not JSON'));
        return;
      }
      if (parsed.op === 'error' && parsed.error) {
        emit('error', new MarketDataError(0, parsed.error.code, parsed.error.message));
        return;
      }
      const event = parsed.channel ? EVENT_OF_CHANNEL[parsed.channel as Channel] : undefined;
      if (!event) return;
      if (event === 'alert' || event === 'break') {
        const payload = parsed.data as InForceAlert | SimultaneousBreak;
        if (held) held.push({ event, payload });
        else emitEvent(event, payload);
      } else emit(event, parsed.data as never);
    });
    ws.addEventListener('close', (closed) => {
      emit('close', { code: closed.code, reason: closed.reason });
      if (closedByUser || FINAL_CLOSE_CODES.has(closed.code)) return;
      attempt += 1;
      const delayMs = Math.min(30_000, 500 * 2 ** Math.min(attempt, 6)) * (0.5 + Math.random() / 2);
      emit('reconnecting', { attempt, delayMs });
      retryTimer = setTimeout(connect, delayMs);
    });
  }

  connect();
  return {
    subscribe(channel, symbols) {
      const current = topics.get(channel);
      if (!symbols?.length) topics.set(channel, 'all');
      else if (current !== 'all') topics.set(channel, new Set([...(current ?? []), ...symbols]));
      send('subscribe', channel, symbols);
    },
    unsubscribe(channel, symbols) {
      const current = topics.get(channel);
      if (!symbols?.length || current === 'all') topics.delete(channel);
      else for (const symbol of symbols) current?.delete(symbol);
      send('unsubscribe', channel, symbols);
    },
    on(event, listener) {
      const set = listeners.get(event) ?? new Set();
      set.add(listener as (payload: never) => void);
      listeners.set(event, set);
      return () => set.delete(listener as (payload: never) => void);
    },
    async close() {
      closedByUser = true;
      clearTimeout(retryTimer);
      if (!socket || socket.readyState === WebSocketImpl.CLOSED) return;
      const closing = socket;
      await new Promise<void>((resolve) => {
        closing.addEventListener('close', () => resolve(), { once: true });
        closing.close(1000, 'client closing');
      });
    },
  };
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
