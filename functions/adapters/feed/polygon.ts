/**
 * Polygon.io (now Massive) WebSocket clusters for stocks (`wss://socket.massive.com/stocks`) and futures
 * (`wss://socket.massive.com/futures`), each a TradeFeed of its own (an account gets one connection per
 * cluster; docs/data-sources.md#providers-and-what-each-covers). JSON frames, each an array of events:
 *
 * - handshake: `[{"ev":"status","status":"connected",...}]`, then `{"action":"auth","params":KEY}` is answered
 *   with status `auth_success` (or `auth_failed`, `auth_timeout`), then
 *   `{"action":"subscribe","params":"T.AAPL,T.MSFT"}` with one status `success` per channel
 *   (`"subscribed to: T.AAPL"`); the feed counts as subscribed when every channel is acknowledged;
 * - data: trade events `T` (stocks: `sym`, `x`, `i`, `trfi` on a TRF print, `z`, `p`, `s`, `c` numeric
 *   conditions, `t` SIP time in Unix ms, `q`; futures: `sym`, `p`, `s`, `t` in Unix ms, `q`);
 * - status `max_connections` (another connection took the cluster), `force_disconnect`, `slow_consumer`.
 *
 * A stock trade's id is `exchange-id`, or `exchange-trf-id` for a print reported through a Trade Reporting
 * Facility (`4-201-12345`): Massive's id is unique per ticker, exchange and TRF, and the REST trades endpoint
 * gives the same three (`exchange`, `trf_id`, `id`), its `sip_timestamp` in Unix ns read exactly
 * (exact-time.ts). A futures trade's id is its sequence number `q`, unique per contract. The stream carries
 * no corrections or cancels.
 */
import pLimit from 'p-limit';
import {
  type FeedConnection,
  FeedError,
  type FeedEvent,
  type FeedListener,
  type FeedTrade,
  type GapFill,
  type TradeFeed,
} from '#domain/feed/ports';
import { numericConditionsEffect } from '#domain/feed/sale-conditions';
import { epochMsOfNanos, parseJsonKeepingIntegers } from './exact-time.ts';
import { feedTradeOf } from './feed-trades.ts';
import {
  openProviderSocket,
  type ProviderMessage,
  type ProviderProtocol,
  type ProviderSocketOptions,
} from './provider-socket.ts';
import { getPage, isSameOrigin, type RestRetryPolicy, STOPPED } from './rest-pages.ts';

/** REST requests in flight at once while filling a gap (one per ticker). */
const REST_CONCURRENCY = 8;

export const POLYGON_SOCKET_URL = 'wss://socket.massive.com';
export const POLYGON_REST_URL = 'https://api.massive.com';

export type PolygonCluster = 'stocks' | 'futures';

const DISCONNECTS: Readonly<Record<string, FeedError['code']>> = {
  max_connections: 'connection_limit',
  slow_consumer: 'slow_client',
  force_disconnect: 'protocol',
};

function statusError(message: ProviderMessage): FeedError | undefined {
  const status = String(message.status ?? '');
  const text = `Polygon status ${status}: ${String(message.message ?? '')}`;
  if (status === 'auth_failed' || status === 'auth_timeout') return new FeedError('auth_failed', text);
  const code = DISCONNECTS[status];
  return code === undefined ? undefined : new FeedError(code, text);
}

const numbersOf = (value: unknown): number[] =>
  Array.isArray(value) ? value.filter((item): item is number => typeof item === 'number') : [];

function streamTrade(cluster: PolygonCluster, symbol: string | undefined, message: ProviderMessage) {
  if (cluster === 'futures') {
    return feedTradeOf(symbol, message.p, message.s, Number(message.t), String(message.q ?? ''), {
      effect: { lastPrice: true, highLow: true, openClose: true, volume: true },
      unknown: [],
    });
  }
  return feedTradeOf(
    symbol,
    message.p,
    message.s,
    Number(message.t),
    stockTradeId(message.x, message.trfi, message.i),
    numericConditionsEffect(numbersOf(message.c)),
  );
}

/**
 * A stock trade's id: Massive's trade id is unique per ticker, exchange and Trade Reporting Facility, so the
 * id is `exchange-id` for an exchange print (`4-12345`) and `exchange-trf-id` for a TRF print (`4-201-12345`;
 * `trfi` on the stream, `trf_id` in REST), the same string for the live and the REST copy of a trade.
 */
export function stockTradeId(exchange: unknown, trf: unknown, id: unknown): string {
  if (exchange === undefined || exchange === null || id === undefined || id === null || id === '') return '';
  const trfPart = trf === undefined || trf === null ? '' : `${String(trf)}-`;
  return `${String(exchange)}-${trfPart}${String(id)}`;
}

function polygonProtocol(
  cluster: PolygonCluster,
  apiKey: string,
  symbols: ReadonlyMap<string, string>,
): ProviderProtocol {
  const awaiting = new Set([...symbols.keys()].map((symbol) => `T.${symbol}`));
  return {
    handshake(message, send) {
      if (message.ev !== 'status') return undefined;
      const error = statusError(message);
      if (error !== undefined) return error;
      if (message.status === 'connected') {
        send({ action: 'auth', params: apiKey });
      } else if (message.status === 'auth_success') {
        send({ action: 'subscribe', params: [...awaiting].join(',') });
      } else if (message.status === 'success') {
        const match = /^subscribed to: (.+)$/.exec(String(message.message ?? ''));
        if (match?.[1] !== undefined) awaiting.delete(match[1]);
        if (awaiting.size === 0) return 'subscribed';
      }
      return undefined;
    },
    stream(message): FeedEvent | FeedError | 'invalid' | undefined {
      if (message.ev === 'status') return statusError(message);
      if (message.ev !== 'T') return undefined;
      const symbol = typeof message.sym === 'string' ? symbols.get(message.sym) : undefined;
      const feedTrade = streamTrade(cluster, symbol, message);
      return feedTrade === undefined ? 'invalid' : { type: 'trade', feedTrade };
    },
  };
}

interface RestTrade {
  conditions?: number[];
  exchange?: number;
  id?: string;
  trf_id?: number;
  price?: number;
  size?: number;
  /** Unix ns, kept as its digits (exact-time.ts). */
  sip_timestamp?: string;
}

interface RestPage {
  results?: RestTrade[] | null;
  next_url?: string | null;
}

/** The REST fields read as their digits: Unix ns do not fit a float. */
const NANOSECOND_FIELDS = ['sip_timestamp', 'participant_timestamp', 'trf_timestamp'];

/** A trade of GET /v3/trades/{ticker} as a FeedTrade, with the stream's id and the time floored to its ms. */
export function restTrade(symbol: string, result: RestTrade): FeedTrade | undefined {
  return feedTradeOf(
    symbol,
    result.price,
    result.size,
    epochMsOfNanos(result.sip_timestamp),
    stockTradeId(result.exchange, result.trf_id, result.id),
    numericConditionsEffect(result.conditions ?? []),
  );
}

interface RestContext {
  readonly restUrl: string;
  readonly apiKey: string;
  readonly pageSize: number;
  readonly retry: RestRetryPolicy | undefined;
  /** The connector's stop: ends every request and wait (the rest is unfilled, `stopped`). */
  readonly signal: AbortSignal | undefined;
}

/**
 * GET /v3/trades/{ticker} over [startMs, endMs), following `next_url` while it stays on the configured REST
 * origin (the key goes to no other host), each page with retries (rest-pages.ts). A page that still fails,
 * or a `next_url` elsewhere, ends this ticker's fill: what was fetched is kept and the rest, from the last
 * fetched trade's time, is named unfilled.
 */
async function restTrades(
  context: RestContext,
  providerSymbol: string,
  symbol: string,
  startMs: number,
  endMs: number,
): Promise<GapFill> {
  const first = new URL(`/v3/trades/${encodeURIComponent(providerSymbol)}`, context.restUrl);
  first.searchParams.set('timestamp.gte', String(BigInt(startMs) * 1_000_000n));
  first.searchParams.set('timestamp.lt', String(BigInt(endMs) * 1_000_000n));
  first.searchParams.set('order', 'asc');
  first.searchParams.set('sort', 'timestamp');
  first.searchParams.set('limit', String(context.pageSize));
  const trades: FeedTrade[] = [];
  const unfilled = (reason: string): GapFill => ({
    trades,
    unfilled: [{ symbol, startMs: trades.at(-1)?.trade.timestamp ?? startMs, endMs, reason }],
  });
  let next: string | undefined = first.toString();
  while (next !== undefined) {
    if (!isSameOrigin(next, context.restUrl)) {
      return unfilled(`next_url leaves the configured REST origin (${originOf(next)}): not followed`);
    }
    const outcome = await getPage(
      next,
      { Authorization: `Bearer ${context.apiKey}` },
      context.retry,
      context.signal,
    );
    if (!outcome.ok) {
      return unfilled(outcome.reason === STOPPED ? STOPPED : `Massive trades endpoint ${outcome.reason}`);
    }
    let page: RestPage;
    try {
      page = parseJsonKeepingIntegers(outcome.text, NANOSECOND_FIELDS) as RestPage;
    } catch {
      return unfilled('Massive trades endpoint answered a page that is not JSON');
    }
    for (const result of page.results ?? []) {
      const trade = restTrade(symbol, result);
      if (trade !== undefined) trades.push(trade);
    }
    next = page.next_url ?? undefined;
  }
  return { trades, unfilled: [] };
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'not a URL';
  }
}

export interface PolygonFeedOptions {
  readonly socketUrl?: string;
  readonly restUrl?: string;
  /** Trades per REST page (Massive's most: 50,000). */
  readonly restPageSize?: number;
  readonly restRetry?: RestRetryPolicy;
  readonly socket?: ProviderSocketOptions;
}

export function polygonFeed(
  cluster: PolygonCluster,
  apiKey: string,
  options: PolygonFeedOptions = {},
): TradeFeed {
  const socketUrl = options.socketUrl ?? `${POLYGON_SOCKET_URL}/${cluster}`;
  const restUrl = options.restUrl ?? POLYGON_REST_URL;
  const feed: TradeFeed = {
    name: `polygon-${cluster}`,
    connect(symbols: ReadonlyMap<string, string>, listener: FeedListener): Promise<FeedConnection> {
      return openProviderSocket(
        socketUrl,
        polygonProtocol(cluster, apiKey, symbols),
        listener,
        options.socket,
      );
    },
  };
  if (cluster === 'futures') return feed;
  return {
    ...feed,
    async tradesBetween(symbols, startMs, endMs, signal) {
      const context: RestContext = {
        restUrl,
        apiKey,
        pageSize: options.restPageSize ?? 50_000,
        retry: options.restRetry,
        signal,
      };
      const limit = pLimit(REST_CONCURRENCY);
      const fills = await Promise.all(
        [...symbols].map(([providerSymbol, symbol]) =>
          limit(() => restTrades(context, providerSymbol, symbol, startMs, endMs)),
        ),
      );
      return {
        trades: fills.flatMap((fill) => fill.trades),
        unfilled: fills.flatMap((fill) => fill.unfilled),
      };
    },
  };
}
