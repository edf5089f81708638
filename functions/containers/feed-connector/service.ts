/**
 * The production wiring of the live feed connector (docs/data-sources.md): the provider's feeds, the symbols
 * each covers, the market calendar, and one FeedConnector per feed (functions/use-cases/feed-connector.ts),
 * all putting into one TradeSink. Used by the process entry (functions/containers/feed-connector.ts) and by
 * `npm run feed`.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { ALPACA_STREAM_URL, alpacaFeed } from '#adapters/feed/alpaca';
import { POLYGON_SOCKET_URL, polygonFeed } from '#adapters/feed/polygon';
import type { FeedProvider } from '#contracts/feed';
import { sessionAt } from '#domain/calendar/sessions';
import { newYorkDate } from '#domain/calendar/time-zone';
import { describeFeedState, type FeedConnectionState } from '#domain/feed/connection-state';
import { isContinuousFuture, providerSymbolOn } from '#domain/feed/futures-roll';
import type { FeedLog, FeedPositionStore, TradeFeed } from '#domain/feed/ports';
import { luldTierOf } from '#domain/feed/price-band';
import { latestSessionOpenMs } from '#domain/feed/restart';
import type { TradeSink } from '#domain/market-data/ports';
import { FeedConnector, type FeedConnectorSettings } from '#use-cases/feed-connector';
import { FeedMetricsRecorder, type FeedTotals } from './metrics.ts';
import { luldTier1Symbols } from './settings.ts';

export interface FeedServiceOptions {
  readonly provider: FeedProvider;
  readonly credentials: Record<string, string>;
  /** Alpaca: the stream URL; Polygon: the cluster root (`/stocks` and `/futures` are appended). */
  readonly url?: string;
  /** The REST origin for gap fills (default: the provider's). */
  readonly restUrl?: string;
  /** Universe symbols. */
  readonly symbols: readonly string[];
  readonly sink: TradeSink;
  readonly log: FeedLog;
  readonly settings?: Partial<FeedConnectorSettings>;
  /** Emit the Feed* metrics as EMF on stdout (on AWS); false: keep totals only (`npm run feed`). */
  readonly emitMetrics?: boolean;
  /** The LULD Tier 1 symbols (default: the universe file's, functions/containers/feed-connector/settings.ts); others Tier 2. */
  readonly luldTier1?: ReadonlySet<string>;
  /** Where each feed's position is kept across restarts; without it a start fills nothing it missed. */
  readonly positions?: FeedPositionStore;
  /** The service clock, Unix ms (default: the wall clock; `npm run feed` passes the local stack's). */
  readonly nowMs?: () => number;
}

interface CoveredFeed {
  readonly feed: TradeFeed;
  readonly symbols: readonly string[];
}

/** Each feed of the provider with the universe symbols it carries; the rest are not covered. */
export function providerFeeds(options: FeedServiceOptions): { feeds: CoveredFeed[]; uncovered: string[] } {
  const futures = options.symbols.filter(isContinuousFuture);
  const stocks = options.symbols.filter((symbol) => !isContinuousFuture(symbol));
  if (options.provider === 'alpaca') {
    const feed = alpacaFeed(
      {
        APCA_API_KEY_ID: options.credentials.APCA_API_KEY_ID ?? '',
        APCA_API_SECRET_KEY: options.credentials.APCA_API_SECRET_KEY ?? '',
      },
      {
        streamUrl: options.url ?? ALPACA_STREAM_URL,
        ...(options.restUrl ? { restUrl: options.restUrl } : {}),
      },
    );
    return { feeds: stocks.length > 0 ? [{ feed, symbols: stocks }] : [], uncovered: futures };
  }
  const root = (options.url ?? POLYGON_SOCKET_URL).replace(/\/$/, '');
  const key = options.credentials.POLYGON_API_KEY ?? '';
  const rest = options.restUrl ? { restUrl: options.restUrl } : {};
  const feeds: CoveredFeed[] = [];
  if (stocks.length > 0)
    feeds.push({
      feed: polygonFeed('stocks', key, { socketUrl: `${root}/stocks`, ...rest }),
      symbols: stocks,
    });
  if (futures.length > 0) {
    feeds.push({
      feed: polygonFeed('futures', key, { socketUrl: `${root}/futures`, ...rest }),
      symbols: futures,
    });
  }
  return { feeds, uncovered: [] };
}

/** Provider symbol -> universe symbol on the New York date of `nowMs` (futures: the front contract). */
export function subscriptionOn(symbols: readonly string[], nowMs: number): Map<string, string> {
  const date = newYorkDate(new Date(nowMs));
  return new Map(symbols.map((symbol) => [providerSymbolOn(symbol, date), symbol]));
}

export interface FeedStatus {
  /** Every feed connected. */
  readonly connected: boolean;
  /** Each feed's connection: connected, or reconnecting since when, and a gap open since when. */
  readonly feeds: readonly FeedConnectionState[];
  readonly totals: Readonly<FeedTotals>;
}

/** What the status says of the feeds: `alpaca connected`; `polygon-stocks reconnecting since T, gap open since T`. */
export function describeFeeds(status: FeedStatus): string {
  return status.feeds.length === 0 ? 'no feed' : status.feeds.map(describeFeedState).join('; ');
}

export class FeedService {
  private readonly connectors: FeedConnector[] = [];
  private readonly recorder: FeedMetricsRecorder;
  private flushTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: FeedServiceOptions) {
    this.recorder = new FeedMetricsRecorder(options.emitMetrics ?? true);
  }

  /** Runs every feed's connector until `stop()`; rejects when one is refused for good. */
  async run(): Promise<void> {
    const { feeds, uncovered } = providerFeeds(this.options);
    if (uncovered.length > 0) {
      this.options.log.warn('Symbols this provider does not carry: not fed', { symbols: uncovered });
    }
    if (feeds.length === 0) throw new Error('no symbol to feed: the provider carries none of them');
    const tier1 = this.options.luldTier1 ?? luldTier1Symbols();
    for (const { feed, symbols } of feeds) {
      this.connectors.push(
        new FeedConnector(
          {
            feed,
            sink: this.options.sink,
            symbolsOn: (nowMs) => subscriptionOn(symbols, nowMs),
            isSessionOpen: (nowMs) => sessionAt(new Date(nowMs)) !== undefined,
            luldTierOf: (symbol) => luldTierOf(symbol, tier1),
            nowMs: this.options.nowMs ?? Date.now,
            random: Math.random,
            metrics: this.recorder.port(),
            log: this.options.log,
            ...(this.options.positions ? { positions: this.options.positions } : {}),
            latestSessionOpenMs,
          },
          this.options.settings,
        ),
      );
    }
    this.flushTimer = setInterval(() => this.recorder.flush(this.status().connected), 60_000);
    try {
      // One feed refused for good stops the others too; each puts what it holds before its run settles.
      const results = await Promise.allSettled(
        this.connectors.map((connector) =>
          connector.run().catch((error: unknown) => {
            this.stop();
            throw error;
          }),
        ),
      );
      const failed = results.find((result) => result.status === 'rejected');
      if (failed !== undefined) throw failed.reason;
    } finally {
      clearInterval(this.flushTimer);
      this.recorder.flush(false);
    }
  }

  /** Stops every connector; `run()` resolves once what they hold is put. */
  stop(): void {
    for (const connector of this.connectors) connector.stop();
  }

  status(): FeedStatus {
    const feeds = this.connectors.map((connector) => connector.state);
    return {
      connected: feeds.length > 0 && feeds.every((feed) => feed.phase === 'connected'),
      feeds,
      totals: this.recorder.totals,
    };
  }
}

/** The FeedLog port on the structured logger (functions/runtime/logger.ts). */
export function loggerFeedLog(logger: Logger): FeedLog {
  return {
    info: (message, fields = {}) => logger.info({ message, ...fields }),
    warn: (message, fields = {}) => logger.warn({ message, ...fields }),
    error: (message, fields = {}) => logger.error({ message, ...fields }),
  };
}
