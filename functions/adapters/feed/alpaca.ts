/**
 * Alpaca Market Data v2 stock stream (`wss://stream.data.alpaca.markets/v2/iex` or `/v2/sip`) and its REST
 * trades endpoint, as one TradeFeed (docs/data-sources.md#providers-and-what-each-covers). JSON frames, each an array of messages:
 *
 * - handshake: `[{"T":"success","msg":"connected"}]`, then `{"action":"auth","key":...,"secret":...}` is
 *   answered `[{"T":"success","msg":"authenticated"}]`, then `{"action":"subscribe","trades":[...]}` is
 *   answered `[{"T":"subscription","trades":[...],...}]` (corrections and cancels come with trades);
 * - data: trades `t`, corrections `c`, cancels and errors `x`;
 * - errors `[{"T":"error","code":...,"msg":...}]`: 402 auth failed, 405 symbol limit exceeded, 406
 *   connection limit exceeded, 407 slow client, 409 insufficient subscription, others (protocol).
 *
 * A trade's id is its exchange code and Alpaca's trade id (`N-52983525029461`): Alpaca's ids are unique per
 * exchange, and a correction or cancel names the trade by the same two.
 */
import type { Amendment } from '#domain/feed/amendments';
import {
  type FeedConnection,
  FeedError,
  type FeedErrorCode,
  type FeedEvent,
  type FeedListener,
  type FeedTrade,
  type TradeFeed,
} from '#domain/feed/ports';
import { letterConditionsEffect, planOfTape } from '#domain/feed/sale-conditions';
import { epochMsOf } from './exact-time.ts';
import { feedTradeOf } from './feed-trades.ts';
import {
  openProviderSocket,
  type ProviderMessage,
  type ProviderProtocol,
  type ProviderSocketOptions,
} from './provider-socket.ts';
import { getPage, type RestRetryPolicy, STOPPED } from './rest-pages.ts';

export const ALPACA_STREAM_URL = 'wss://stream.data.alpaca.markets/v2/iex';
export const ALPACA_REST_URL = 'https://data.alpaca.markets';

export interface AlpacaCredentials {
  readonly APCA_API_KEY_ID: string;
  readonly APCA_API_SECRET_KEY: string;
}

const ERROR_CODES: Readonly<Record<number, FeedErrorCode>> = {
  402: 'auth_failed',
  405: 'symbol_limit',
  406: 'connection_limit',
  407: 'slow_client',
  409: 'not_entitled',
  411: 'not_entitled',
};

function errorOf(message: ProviderMessage): FeedError {
  const code = typeof message.code === 'number' ? message.code : 0;
  return new FeedError(ERROR_CODES[code] ?? 'protocol', `Alpaca error ${code}: ${String(message.msg ?? '')}`);
}

const stringsOf = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

/** A trade of the stream or of the REST endpoint (the same short field names) as a FeedTrade. */
export function alpacaTrade(symbol: string | undefined, message: ProviderMessage): FeedTrade | undefined {
  const verdict = letterConditionsEffect(planOfTape(message.z as string | undefined), stringsOf(message.c));
  return feedTradeOf(
    symbol,
    message.p,
    message.s,
    epochMsOf(message.t),
    `${String(message.x ?? '')}-${String(message.i ?? '')}`,
    verdict,
  );
}

function alpacaProtocol(
  credentials: AlpacaCredentials,
  symbols: ReadonlyMap<string, string>,
): ProviderProtocol {
  return {
    handshake(message, send) {
      if (message.T === 'error') return errorOf(message);
      if (message.T === 'success' && message.msg === 'connected') {
        send({ action: 'auth', key: credentials.APCA_API_KEY_ID, secret: credentials.APCA_API_SECRET_KEY });
      } else if (message.T === 'success' && message.msg === 'authenticated') {
        send({ action: 'subscribe', trades: [...symbols.keys()] });
      } else if (message.T === 'subscription') {
        return 'subscribed';
      }
      return undefined;
    },
    stream(message): FeedEvent | FeedError | 'invalid' | undefined {
      const symbol = typeof message.S === 'string' ? symbols.get(message.S) : undefined;
      switch (message.T) {
        case 't': {
          const feedTrade = alpacaTrade(symbol, message);
          return feedTrade === undefined ? 'invalid' : { type: 'trade', feedTrade };
        }
        case 'x': {
          // The message's time is the original trade's (Alpaca's documented samples): where to find it.
          const timestamp = epochMsOf(message.t);
          if (symbol === undefined || !Number.isFinite(timestamp)) return 'invalid';
          const amendment: Amendment = {
            kind: 'cancel',
            symbol,
            tradeId: `${String(message.x ?? '')}-${String(message.i ?? '')}`,
            timestamp,
          };
          return { type: 'amendment', amendment };
        }
        case 'c': {
          const timestamp = epochMsOf(message.t);
          if (symbol === undefined || !Number.isFinite(timestamp)) return 'invalid';
          const corrected = feedTradeOf(
            symbol,
            message.cp,
            message.cs,
            timestamp,
            `${String(message.x ?? '')}-${String(message.ci ?? '')}`,
            letterConditionsEffect(planOfTape(message.z as string | undefined), stringsOf(message.cc)),
          );
          return {
            type: 'amendment',
            amendment: {
              kind: 'correction',
              symbol,
              tradeId: `${String(message.x ?? '')}-${String(message.oi ?? '')}`,
              timestamp,
              corrected: corrected?.counting === 'excluded' ? undefined : corrected?.trade,
            },
          };
        }
        case 'error':
          return errorOf(message);
        default:
          return undefined;
      }
    },
  };
}

/** The `feed` query parameter of the REST endpoint matching a stream URL (`.../v2/sip` -> `sip`). */
function restFeedOf(streamUrl: string): string {
  return new URL(streamUrl).pathname.split('/').filter(Boolean).at(-1) ?? 'iex';
}

export interface AlpacaFeedOptions {
  readonly streamUrl?: string;
  readonly restUrl?: string;
  /** Trades per REST page (Alpaca's most: 10,000). */
  readonly restPageSize?: number;
  readonly restRetry?: RestRetryPolicy;
  readonly socket?: ProviderSocketOptions;
}

export function alpacaFeed(credentials: AlpacaCredentials, options: AlpacaFeedOptions = {}): TradeFeed {
  const streamUrl = options.streamUrl ?? ALPACA_STREAM_URL;
  const restUrl = options.restUrl ?? ALPACA_REST_URL;
  return {
    name: 'alpaca',
    connect(symbols: ReadonlyMap<string, string>, listener: FeedListener): Promise<FeedConnection> {
      return openProviderSocket(streamUrl, alpacaProtocol(credentials, symbols), listener, options.socket);
    },
    /**
     * GET /v2/stocks/trades (historical trades, several symbols, paged by next_page_token), each page with
     * retries (rest-pages.ts). A page that still fails ends the fill: what was fetched is kept and each
     * symbol's span from its last fetched trade (the window's start if none) to the end is named unfilled.
     */
    async tradesBetween(symbols, startMs, endMs, signal) {
      const trades: FeedTrade[] = [];
      const lastFetchedMs = new Map<string, number>();
      const headers = {
        'APCA-API-KEY-ID': credentials.APCA_API_KEY_ID,
        'APCA-API-SECRET-KEY': credentials.APCA_API_SECRET_KEY,
      };
      let pageToken: string | undefined;
      do {
        const url = new URL('/v2/stocks/trades', restUrl);
        url.searchParams.set('symbols', [...symbols.keys()].join(','));
        url.searchParams.set('start', new Date(startMs).toISOString());
        url.searchParams.set('end', new Date(endMs).toISOString());
        url.searchParams.set('limit', String(options.restPageSize ?? 10_000));
        url.searchParams.set('sort', 'asc');
        url.searchParams.set('feed', restFeedOf(streamUrl));
        if (pageToken !== undefined) url.searchParams.set('page_token', pageToken);
        const page = await alpacaPage(url.toString(), headers, options.restRetry, signal);
        if (!page.ok) {
          const reason = page.reason === STOPPED ? STOPPED : `Alpaca trades endpoint ${page.reason}`;
          const unfilled = [...symbols.values()].map((symbol) => ({
            symbol,
            startMs: lastFetchedMs.get(symbol) ?? startMs,
            endMs,
            reason,
          }));
          return { trades, unfilled };
        }
        for (const [providerSymbol, list] of Object.entries(page.body.trades ?? {})) {
          for (const message of list) {
            const trade = alpacaTrade(symbols.get(providerSymbol), message);
            if (trade === undefined) continue;
            trades.push(trade);
            lastFetchedMs.set(trade.trade.symbol, trade.trade.timestamp);
          }
        }
        pageToken = page.body.next_page_token ?? undefined;
      } while (pageToken !== undefined);
      return { trades, unfilled: [] };
    },
  };
}

interface AlpacaTradesPage {
  trades?: Record<string, ProviderMessage[]> | null;
  next_page_token?: string | null;
}

async function alpacaPage(
  url: string,
  headers: Record<string, string>,
  retry: RestRetryPolicy | undefined,
  signal: AbortSignal | undefined,
): Promise<{ ok: true; body: AlpacaTradesPage } | { ok: false; reason: string }> {
  const outcome = await getPage(url, headers, retry, signal);
  if (!outcome.ok) return outcome;
  try {
    return { ok: true, body: JSON.parse(outcome.text) as AlpacaTradesPage };
  } catch {
    return { ok: false, reason: 'answered a page that is not JSON' };
  }
}
