import {
  type Candles,
  type CandlesQuery,
  type CurrentSetups,
  type CurrentSetupsQuery,
  type InForceAlert,
  type InForceAlertList,
  type InForceAlertsQuery,
  type Instrument,
  type InstrumentList,
  type LatestPrices,
  type LatestPricesQuery,
  type ListInstrumentsQuery,
  type MarketStatus,
  REST_ROUTES,
  type SimultaneousBreak,
  type SimultaneousBreakList,
  type SimultaneousBreaksQuery,
  type StateSnapshot,
  WS_BASE_PATH,
} from './contracts.ts';
import { type PollOptions, pollFeed } from './poller.ts';
import {
  pathOf,
  type QueryValue,
  RestTransport,
  type RestTransportOptions,
  type RetryOptions,
} from './rest.ts';
import {
  CATCH_UP_PAGE_LIMIT,
  MarketDataStream,
  type StreamOptions,
  type WebSocketConstructor,
} from './stream.ts';

export interface ClientOptions {
  /** The REST base, e.g. `https://api.example.com/api/market/v1` or `http://127.0.0.1:3000/api/market/v1`. */
  readonly baseUrl: string;
  readonly apiKey: string;
  /** The WebSocket URL; default: the REST base's origin with `ws(s):` and `/ws/market/v1`. */
  readonly wsUrl?: string;
  /** Retries of 429s, 5xx and network failures (defaults: 4 retries, 1 s doubling up to 30 s, jittered). */
  readonly retry?: RetryOptions;
  /** Each attempt's limit in ms (default 30,000): one that takes longer fails as a retryable `timeout`. */
  readonly timeoutMs?: number;
  readonly fetch?: typeof fetch;
  readonly WebSocket?: WebSocketConstructor;
  /** For tests: the jitter's random source. */
  readonly random?: () => number;
  /** Told before each retry's wait (for logging). */
  readonly onRetry?: RestTransportOptions['onRetry'];
}

type Query = Readonly<Record<string, QueryValue>>;

/** A page of an alert route: `nextSinceId` is its `X-Next-Since-Id` header, when sent. */
export type WithNextSinceId<Body> = Body & { readonly nextSinceId?: number };
/** A page of a paged listing: `nextCursor` is the next page's `cursor` (its `Link` header), absent on the last. */
export type WithNextCursor<Body> = Body & { readonly nextCursor?: string };

/** A request's own options. */
export interface RequestOptions {
  readonly signal?: AbortSignal;
}

/** The widest alert window (docs/partner-guide.md#limits-and-throttling): catching up looks back this far. */
const WIDEST_WINDOW_MINUTES = 10_080;

/** The WebSocket URL beside a REST base: same host, `ws:` or `wss:`, the stream's path. */
export function defaultWsUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.pathname = WS_BASE_PATH;
  url.search = '';
  return url.toString();
}

export type MarketDataClient = ReturnType<typeof createClient>;

/** The typed client of every REST route, the feed pollers and the stream (clients/typescript/README.md). */
export function createClient(options: ClientOptions) {
  if (!options.baseUrl) throw new TypeError('baseUrl is required');
  if (!options.apiKey) throw new TypeError('apiKey is required');
  const rest = new RestTransport(options);
  const get = async <Body>(path: string, query?: Query, request?: RequestOptions) =>
    (await rest.get<Body>(path, query, request?.signal)).body;
  const routes = REST_ROUTES;
  const withHeaders = async <Body extends object>(
    path: string,
    query: Query | undefined,
    request: RequestOptions | undefined,
  ) => {
    const { body, nextSinceId, nextCursor } = await rest.get<Body>(path, query, request?.signal);
    return {
      ...body,
      ...(nextSinceId === undefined ? {} : { nextSinceId }),
      ...(nextCursor === undefined ? {} : { nextCursor }),
    };
  };

  const inForcePage = (query: InForceAlertsQuery, signal?: AbortSignal) =>
    rest.get<InForceAlertList>(routes.getInForceAlerts.path, query as Query, signal);
  const breaksPage = (query: SimultaneousBreaksQuery, signal?: AbortSignal) =>
    rest.get<SimultaneousBreakList>(routes.getSimultaneousBreaks.path, query as Query, signal);

  return {
    /** GET /instruments (docs/partner-guide.md#get-instruments). */
    listInstruments: (
      query: ListInstrumentsQuery = {},
      request?: RequestOptions,
    ): Promise<WithNextCursor<InstrumentList>> =>
      withHeaders<InstrumentList>(routes.listInstruments.path, query as Query, request),
    /** GET /instruments/{symbol}; 404 `unknown_symbol` as a MarketDataError. */
    getInstrument: (symbol: string, request?: RequestOptions) =>
      get<Instrument>(pathOf(routes.getInstrument.path, { symbol }), undefined, request),
    /** GET /market-status (docs/partner-guide.md#market-status). */
    getMarketStatus: (request?: RequestOptions) =>
      get<MarketStatus>(routes.getMarketStatus.path, undefined, request),
    /** GET /prices/latest (docs/partner-guide.md#latest-prices); `symbols` is required. */
    getLatestPrices: (query: LatestPricesQuery, request?: RequestOptions) =>
      get<LatestPrices>(routes.getLatestPrices.path, query as unknown as Query, request),
    /** GET /candles/{symbol}; an unknown interval is a MarketDataError 404 `unknown_interval`. */
    getCandles: (symbol: string, query: CandlesQuery = {}, request?: RequestOptions) =>
      get<Candles>(pathOf(routes.getCandles.path, { symbol }), query as Query, request),
    /** GET /states/{symbol} (docs/partner-guide.md#get-statessymbol). */
    getState: (symbol: string, request?: RequestOptions) =>
      get<StateSnapshot>(pathOf(routes.getState.path, { symbol }), undefined, request),
    /** GET /setups/current (docs/partner-guide.md#get-setupscurrent). */
    getCurrentSetups: (
      query: CurrentSetupsQuery = {},
      request?: RequestOptions,
    ): Promise<WithNextCursor<CurrentSetups>> =>
      withHeaders<CurrentSetups>(routes.getCurrentSetups.path, query as Query, request),
    /** GET /alerts/in-force (docs/partner-guide.md#get-alertsin-force). */
    getInForceAlerts: (
      query: InForceAlertsQuery = {},
      request?: RequestOptions,
    ): Promise<WithNextSinceId<InForceAlertList>> =>
      withHeaders<InForceAlertList>(routes.getInForceAlerts.path, query as Query, request),
    /** GET /alerts/simultaneous-breaks (docs/partner-guide.md#get-alertssimultaneous-breaks). */
    getSimultaneousBreaks: (
      query: SimultaneousBreaksQuery = {},
      request?: RequestOptions,
    ): Promise<WithNextSinceId<SimultaneousBreakList>> =>
      withHeaders<SimultaneousBreakList>(routes.getSimultaneousBreaks.path, query as Query, request),

    /** Every in-force alert once, in id order, as it is committed: an async iterator driven by since_id. */
    pollInForceAlerts: (
      options: PollOptions & Omit<InForceAlertsQuery, 'since_id'> = {},
    ): AsyncGenerator<InForceAlert, void, undefined> => {
      const { sinceId, intervalMs, signal, ...filters } = options;
      return pollFeed<InForceAlert>(
        (since, pageSignal) => inForcePage({ ...filters, since_id: since }, pageSignal),
        { sinceId, intervalMs, signal },
      );
    },
    /** Every simultaneous break once, in id order: as pollInForceAlerts. */
    pollSimultaneousBreaks: (
      options: PollOptions & Omit<SimultaneousBreaksQuery, 'since_id'> = {},
    ): AsyncGenerator<SimultaneousBreak, void, undefined> => {
      const { sinceId, intervalMs, signal, ...filters } = options;
      return pollFeed<SimultaneousBreak>(
        (since, pageSignal) => breaksPage({ ...filters, since_id: since }, pageSignal),
        { sinceId, intervalMs, signal },
      );
    },

    /** Opens the stream (docs/websocket.md); subscribe with `stream.subscribe(channel, symbols?)`. */
    stream: (streamOptions: StreamOptions = {}): MarketDataStream => {
      const WebSocketImpl = options.WebSocket ?? (globalThis.WebSocket as unknown as WebSocketConstructor);
      if (!WebSocketImpl) throw new TypeError('no WebSocket implementation: pass options.WebSocket');
      const catchUpQuery = { limit: CATCH_UP_PAGE_LIMIT, window_minutes: WIDEST_WINDOW_MINUTES };
      return new MarketDataStream(
        {
          url: options.wsUrl ?? defaultWsUrl(options.baseUrl),
          apiKey: options.apiKey,
          WebSocket: WebSocketImpl,
          random: options.random,
          alerts: (sinceId, symbols, signal) =>
            inForcePage(
              { ...catchUpQuery, since_id: sinceId, symbols: symbols ? [...symbols] : undefined },
              signal,
            ),
          breaks: (sinceId, _symbols, signal) => breaksPage({ ...catchUpQuery, since_id: sinceId }, signal),
          head: async (feed, signal) => {
            const page = await (feed === 'alerts' ? inForcePage : breaksPage)({ since_id: 'latest' }, signal);
            return page.nextSinceId ?? 0;
          },
        },
        streamOptions,
      );
    },
  };
}
