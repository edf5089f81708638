/**
 * Polygon.io (now Massive) WebSocket clusters for stocks (`wss://socket.massive.com/stocks`) and futures
 * (`wss://socket.massive.com/futures`), each a TradeFeed of its own (an account gets one connection per
 * cluster; docs/data-sources.md#providers-and-what-each-covers). JSON frames, each an array of events:
 *
 * - handshake: `[{"ev":"status","status":"connected",...}]`, then `{"action":"auth","params":KEY}` is answered
 *   with status `auth_success` (or `auth_failed`, `auth_timeout`), then
 *   `{"action":"subscribe","params":"T.AAPL,T.MSFT"}` with one status `success` per channel
 *   (`"subscribed to: T.AAPL"`); the feed counts as subscribed when every channel is acknowledged;
 * - data: trade events `T` (stocks: `sym`, `x`, `i`, `z`, `p`, `s`, `c` numeric conditions, `t` Unix ms,
 *   `q`; futures: `sym`, `p`, `s`, `t`, `q`);
 * - status `max_connections` (another connection took the cluster), `force_disconnect`, `slow_consumer`.
 *
 * A stock trade's id is its exchange id and Polygon's trade id (`4-12345`), unique per exchange and the same
 * in the REST trades endpoint (`exchange`, `id`); a futures trade's is its sequence number `q`, unique per
 * contract. The stream carries no corrections or cancels.
 */
import pLimit from 'p-limit';
import {
  type FeedConnection,
  FeedError,
  type FeedEvent,
  type FeedListener,
  type FeedTrade,
  type TradeFeed,
} from '#domain/feed/ports';
import { numericConditionsEffect } from '#domain/feed/sale-conditions';
import { feedTradeOf } from './feed-trades.ts';
import { openProviderSocket, type ProviderMessage, type ProviderProtocol } from './provider-socket.ts';

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
    `${String(message.x ?? '')}-${String(message.i ?? '')}`,
    numericConditionsEffect(numbersOf(message.c)),
  );
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
  price?: number;
  size?: number;
  sip_timestamp?: number;
}

/** GET /v3/trades/{ticker} over [startMs, endMs), following next_url. */
async function restTrades(
  restUrl: string,
  apiKey: string,
  providerSymbol: string,
  symbol: string,
  startMs: number,
  endMs: number,
): Promise<FeedTrade[]> {
  const first = new URL(`/v3/trades/${encodeURIComponent(providerSymbol)}`, restUrl);
  first.searchParams.set('timestamp.gte', String(BigInt(startMs) * 1_000_000n));
  first.searchParams.set('timestamp.lt', String(BigInt(endMs) * 1_000_000n));
  first.searchParams.set('order', 'asc');
  first.searchParams.set('sort', 'timestamp');
  first.searchParams.set('limit', '50000');
  const trades: FeedTrade[] = [];
  let next: string | undefined = first.toString();
  while (next !== undefined) {
    const response = await fetch(next, { headers: { Authorization: `Bearer ${apiKey}` } });
    if (!response.ok) throw new Error(`Polygon trades endpoint answered ${response.status}`);
    const page = (await response.json()) as { results?: RestTrade[]; next_url?: string };
    for (const result of page.results ?? []) {
      const trade = feedTradeOf(
        symbol,
        result.price,
        result.size,
        Math.floor(Number(result.sip_timestamp) / 1_000_000),
        `${String(result.exchange ?? '')}-${String(result.id ?? '')}`,
        numericConditionsEffect(result.conditions ?? []),
      );
      if (trade !== undefined) trades.push(trade);
    }
    next = page.next_url ?? undefined;
  }
  return trades;
}

export function polygonFeed(
  cluster: PolygonCluster,
  apiKey: string,
  options: { socketUrl?: string; restUrl?: string } = {},
): TradeFeed {
  const socketUrl = options.socketUrl ?? `${POLYGON_SOCKET_URL}/${cluster}`;
  const restUrl = options.restUrl ?? POLYGON_REST_URL;
  const feed: TradeFeed = {
    name: `polygon-${cluster}`,
    connect(symbols: ReadonlyMap<string, string>, listener: FeedListener): Promise<FeedConnection> {
      return openProviderSocket(socketUrl, polygonProtocol(cluster, apiKey, symbols), listener);
    },
  };
  if (cluster === 'futures') return feed;
  return {
    ...feed,
    async tradesBetween(symbols, startMs, endMs) {
      const limit = pLimit(REST_CONCURRENCY);
      const lists = await Promise.all(
        [...symbols].map(([providerSymbol, symbol]) =>
          limit(() => restTrades(restUrl, apiKey, providerSymbol, symbol, startMs, endMs)),
        ),
      );
      return lists.flat();
    },
  };
}
