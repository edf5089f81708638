import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { expect, vi } from 'vitest';
import type { Bar } from '#domain/market-data/bars';
import { localDocumentClient } from '../../scripts/local/dynamo.ts';
import { localTableName } from '../../scripts/local/tables.ts';
import { type Dialect, FakeProvider, type FakeProviderOptions, type Message } from './fake-providers.ts';
import { startTestStack, type TestStack } from './local-stack.ts';
import { spawnScript, waitForOutput } from './processes.ts';

/**
 * What the market truly printed, for the end-to-end feed tests (test/integration/feed-tape-*.test.ts): each
 * print with its time (Unix ms, floored as the service reads it), price, size and whether it sets prices,
 * after cancels were taken out and corrections put in. Bars and the latest price are folded from it here,
 * independently of the service's code.
 */
export interface TruePrint {
  readonly timestamp: number;
  readonly price: number;
  readonly size: number;
  /** An odd lot and the like: counts in volume, sets no price. */
  readonly volumeOnly?: boolean;
}

/** The 1m bars of `tape` (in time order): volume-only prints add volume and open at the last sale. */
export function trueMinuteBars(tape: readonly TruePrint[]): Bar[] {
  const bars = new Map<number, Bar>();
  let lastSale: number | undefined;
  for (const { timestamp, price, size, volumeOnly } of tape) {
    const time = Math.floor(timestamp / 60_000) * 60;
    const bar = bars.get(time);
    if (volumeOnly === true) {
      if (bar !== undefined) bar.volume += size;
      else if (lastSale !== undefined) {
        bars.set(time, {
          time,
          open: lastSale,
          high: lastSale,
          low: lastSale,
          close: lastSale,
          volume: size,
        });
      }
      continue;
    }
    lastSale = price;
    if (bar === undefined) {
      bars.set(time, { time, open: price, high: price, low: price, close: price, volume: size });
      continue;
    }
    bar.high = Math.max(bar.high, price);
    bar.low = Math.min(bar.low, price);
    bar.close = price;
    bar.volume += size;
  }
  return [...bars.values()];
}

/** The latest price of `tape`: its last price-setting print. */
export function trueLatestPrice(tape: readonly TruePrint[]): TruePrint | undefined {
  return tape.filter((print) => print.volumeOnly !== true).at(-1);
}

const CREDENTIALS: Record<Dialect, Record<string, string>> = {
  alpaca: { APCA_API_KEY_ID: 'key-id', APCA_API_SECRET_KEY: 'secret' },
  polygon: { POLYGON_API_KEY: 'key-id' },
};

/**
 * `npm run feed` from `fake` into `local` as an operator runs it: the fake's stream and REST origins, the
 * local stack's trades stream and DynamoDB (where the feed keeps its position), on the stack's clock.
 * Resolves once subscribed.
 */
export async function startFeed(
  fake: FakeProvider,
  local: TestStack,
  symbols: readonly string[],
): Promise<ChildProcess> {
  const url = fake.dialect === 'alpaca' ? fake.url() : fake.url('');
  const feed = spawnScript(
    'scripts/feed.ts',
    [
      ...[
        '--provider',
        fake.dialect,
        '--url',
        url,
        '--rest-url',
        fake.restUrl,
        '--symbols',
        symbols.join(','),
      ],
      ...['--local-url', local.stack.restUrl, '--endpoint', local.stack.dynamoEndpoint],
    ],
    // Not a Lambda: the test process's invocation-store setting (the local stack's) is not the feed's.
    { ...CREDENTIALS[fake.dialect], AWS_LAMBDA_MAX_CONCURRENCY: undefined },
  );
  let errors = '';
  feed.stderr?.on('data', (chunk) => {
    errors += chunk;
  });
  await waitForOutput(feed, /Feed subscribed/).catch((error: Error) => {
    throw new Error(`${error.message}\n${errors}`);
  });
  return feed;
}

/** Resolves once the feed's stored position has reached `throughMs` (written every few seconds). */
export async function positionReached(local: TestStack, feedName: string, throughMs: number): Promise<void> {
  const documents = localDocumentClient(local.stack.dynamoEndpoint);
  await vi.waitFor(
    async () => {
      const { Item } = await documents.send(
        new GetCommand({ TableName: localTableName('feedPositions'), Key: { feed: feedName } }),
      );
      const position = Item?.throughMs as number | undefined;
      if (position === undefined || position < throughMs) throw new Error(`position ${position}`);
    },
    { timeout: 30_000, interval: 250 },
  );
}

/** Kills the feed as a crash does (SIGKILL: nothing flushed, nothing written). */
export async function crash(feed: ChildProcess): Promise<void> {
  feed.kill('SIGKILL');
  await once(feed, 'exit');
}

/** Stops the feed as an operator does (Ctrl-C); resolves with its exit code. */
export async function stopFeed(feed: ChildProcess): Promise<number | null> {
  if (feed.exitCode !== null || feed.signalCode !== null) return feed.exitCode;
  feed.kill('SIGINT');
  const [code] = await once(feed, 'exit');
  return code as number | null;
}

/** The time of the service's last 1m bar of `symbol` on `date` (YYYY-MM-DD), over REST. */
export async function lastMinuteBarTime(local: TestStack, symbol: string, date: string) {
  return (await minuteBarsOver(local, symbol, date)).at(-1)?.time;
}

/**
 * Crashes `feed` once its stored position has reached `positionMs`, prints `whileDown` on the fake, starts the
 * feed again and resolves with it once the local stack serves `tape` (the day's truth) as its 1m bars of
 * `symbol` on `date`.
 */
export async function crashAndRefill(
  feed: ChildProcess,
  fake: FakeProvider,
  local: TestStack,
  at: { readonly feedName: string; readonly positionMs: number },
  whileDown: readonly Message[],
  expected: { readonly symbol: string; readonly date: string; readonly tape: readonly TruePrint[] },
): Promise<ChildProcess> {
  await positionReached(local, at.feedName, at.positionMs);
  await crash(feed);
  fake.publish(whileDown);
  const restarted = await startFeed(fake, local, [expected.symbol]);
  await vi.waitFor(
    async () =>
      expect(await minuteBarsOver(local, expected.symbol, expected.date)).toEqual(
        trueMinuteBars(expected.tape),
      ),
    { timeout: 30_000, interval: 250 },
  );
  return restarted;
}

/** The service's 1m bars of `symbol` on the New York date `date` (YYYY-MM-DD), over REST. */
export async function minuteBarsOver(local: TestStack, symbol: string, date: string): Promise<Bar[]> {
  return (await local.candles(symbol, `?interval=1m&start=${date}&end=${date}T23:59:00Z&limit=5000`)).bars;
}

/**
 * The local stack serves `tape` (the day's truth) as `symbol`'s latest price, and `earlier` (an earlier day's)
 * as its 1m bars on `earlierDate`: nothing of that day was touched by what came after.
 */
export async function expectServedAsPrinted(
  local: TestStack,
  symbol: string,
  tape: readonly TruePrint[],
  earlier: { readonly date: string; readonly tape: readonly TruePrint[] },
): Promise<void> {
  const latest = trueLatestPrice(tape);
  expect((await local.get(`/prices/latest?symbols=${symbol}`)).body).toEqual({
    items: [{ symbol, price: latest?.price, volume: latest?.size }],
  });
  expect(await minuteBarsOver(local, symbol, earlier.date)).toEqual(trueMinuteBars(earlier.tape));
}

/** A feed test's parts: the local stack, the fake provider, and `npm run feed` between them. */
export interface FeedRig {
  readonly local: TestStack;
  readonly fake: FakeProvider;
  readonly feed: ChildProcess;
}

/**
 * A local stack whose clock reads Tuesday 2024-11-26 10:00 New York, a fake `dialect` server (key `key-id`,
 * secret `secret`, and `options`), and `npm run feed` from it for AAPL, subscribed.
 */
export async function startFeedRig(
  dialect: Dialect,
  options: Partial<FakeProviderOptions> = {},
): Promise<FeedRig> {
  const local = await startTestStack({ clock: { start: new Date('2024-11-26T15:00:00Z'), speed: 1 } });
  const fake = await FakeProvider.start(dialect, { key: 'key-id', secret: 'secret', ...options });
  return { local, fake, feed: await startFeed(fake, local, ['AAPL']) };
}

export async function stopFeedRig({ local, fake, feed }: FeedRig): Promise<void> {
  await stopFeed(feed);
  await fake.close();
  await local.stop();
}
