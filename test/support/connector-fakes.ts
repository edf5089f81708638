import { afterEach } from 'vitest';
import { alpacaFeed } from '#adapters/feed/alpaca';
import { polygonFeed } from '#adapters/feed/polygon';
import type { TradeFeed } from '#domain/feed/ports';
import type { FeedConnector } from '#use-cases/feed-connector';
import {
  alpacaTrade,
  type Dialect,
  FakeProvider,
  type FakeProviderOptions,
  polygonTrade,
} from './fake-providers.ts';

/**
 * Fake provider servers and connectors for a connector test file: each `fakeOf` starts a fake (key `key`,
 * secret `secret`, and any other options), each `track` remembers a running connector, and after every test the connectors are
 * stopped (their runs awaited) and the fakes closed. Call at the top level of the test file.
 */
export function connectorFakes() {
  const fakes: FakeProvider[] = [];
  const running: { connector: FeedConnector; run: Promise<void> }[] = [];
  afterEach(async () => {
    for (const { connector, run } of running.splice(0)) {
      connector.stop();
      await run.catch(() => {});
    }
    for (const fake of fakes.splice(0)) await fake.close();
  });
  return {
    async fakeOf(dialect: Dialect, options: Partial<FakeProviderOptions> = {}): Promise<FakeProvider> {
      const fake = await FakeProvider.start(dialect, { key: 'key', secret: 'secret', ...options });
      fakes.push(fake);
      return fake;
    },
    track(connector: FeedConnector, run: Promise<void>): void {
      running.push({ connector, run });
    },
  };
}

/** The feed of the real adapter for `fake`: Alpaca's stream, or a Massive cluster. */
export function feedOf(fake: FakeProvider, cluster: 'stocks' | 'futures' = 'stocks'): TradeFeed {
  return fake.dialect === 'alpaca'
    ? alpacaFeed(
        { APCA_API_KEY_ID: 'key', APCA_API_SECRET_KEY: 'secret' },
        { streamUrl: fake.url(), restUrl: fake.restUrl },
      )
    : polygonFeed(cluster, 'key', { socketUrl: fake.url(`/${cluster}`), restUrl: fake.restUrl });
}

/** Trade `n` of the test market in `dialect`: AAPL and MSFT alternating, 10 ms apart from `baseMs`. */
export function tradeOf(dialect: Dialect, n: number, baseMs: number) {
  const symbol = n % 2 === 0 ? 'AAPL' : 'MSFT';
  return dialect === 'alpaca'
    ? alpacaTrade(symbol, n, baseMs + n * 10, 100 + n / 100)
    : polygonTrade(symbol, n, baseMs + n * 10, 100 + n / 100);
}

/** The trade id the adapter gives trade `n` of tradeOf. */
export const idOf = (dialect: Dialect, n: number) => (dialect === 'alpaca' ? `D-${n}` : `4-${n}`);

/** `from` .. `to`, both included. */
export const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, index) => from + index);
