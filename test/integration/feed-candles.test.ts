import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { alpacaTrade, FakeProvider } from '../support/fake-providers.ts';
import { startTestStack, type TestStack } from '../support/local-stack.ts';
import { spawnScript, waitForOutput } from '../support/processes.ts';

/**
 * `npm run feed -- --provider alpaca --url <fake>` feeding a local stack: the trades the fake Alpaca stream
 * prints come back as candles over REST. The service clock reads Tuesday 2024-11-26 10:00 New York; the
 * trades are of 09:31 to 09:33 that morning.
 */
const minute = (hhmm: string) => Date.parse(`2024-11-26T${hhmm}:00Z`);
const t = (iso: string) => Date.parse(iso) / 1000;

/** [minute, second, price, size, conditions]; an odd lot counts in volume only, an official close not at all. */
const PRINTS: [string, number, number, number, string[]][] = [
  ['14:31', 1, 100, 100, ['@']],
  ['14:31', 10, 101, 200, ['@', 'F']],
  ['14:31', 20, 150, 30, ['@', 'I']],
  ['14:31', 40, 99.5, 100, ['@']],
  ['14:32', 0, 99, 500, ['@']],
  ['14:32', 30, 50, 10_000, ['M']],
  ['14:32', 59, 98.75, 100, ['@']],
  ['14:33', 5, 90, 40, ['@', 'I']],
  ['14:33', 15, 99.25, 300, ['@']],
];

let local: TestStack;
let fake: FakeProvider;
let feed: ChildProcess;
let startOutput = '';

beforeAll(async () => {
  local = await startTestStack({ clock: { start: new Date('2024-11-26T15:00:00Z'), speed: 1 } });
  fake = await FakeProvider.start('alpaca', { key: 'key-id', secret: 'secret' });
  feed = spawnScript(
    'scripts/feed.ts',
    ['--provider', 'alpaca', '--url', fake.url(), '--symbols', 'AAPL', '--local-url', local.stack.restUrl],
    // Not a Lambda: the test process's invocation-store setting (the local stack's) is not the feed's.
    { APCA_API_KEY_ID: 'key-id', APCA_API_SECRET_KEY: 'secret', AWS_LAMBDA_MAX_CONCURRENCY: undefined },
  );
  let errors = '';
  feed.stderr?.on('data', (chunk) => {
    errors += chunk;
  });
  startOutput = await waitForOutput(feed, /Feed subscribed/).catch((error: Error) => {
    throw new Error(`${error.message}\n${errors}`);
  });
  fake.publish(
    PRINTS.map(([at, second, price, size, conditions], index) => ({
      ...alpacaTrade('AAPL', index + 1, minute(at) + second * 1000, price, conditions),
      s: size,
    })),
  );
}, 90_000);

afterAll(async () => {
  if (feed.exitCode === null) {
    feed.kill('SIGINT');
    await once(feed, 'exit');
  }
  await fake.close();
  await local.stop();
});

const candles = (query: string) => local.candles('AAPL', query);

describe('npm run feed against a fake Alpaca stream, into the local stack', () => {
  it("runs on the local stack's service clock (its sessions are the stack's, not the wall clock's)", () => {
    const line = /On the local stack's service clock (\{.*\})/.exec(startOutput);
    expect(line).not.toBeNull();
    const { now } = JSON.parse(line?.[1] ?? '{}') as { now: string };
    expect(now.slice(0, 10)).toBe('2024-11-26');
  });

  it('serves 1m candles equal to the trades sent, by the sale-condition rules', async () => {
    await vi.waitFor(
      async () => {
        expect((await candles('?interval=1m&start=2024-11-26&end=2024-11-26T14:34:00Z')).bars).toEqual([
          { time: t('2024-11-26T14:31:00Z'), open: 100, high: 101, low: 99.5, close: 99.5, volume: 430 },
          { time: t('2024-11-26T14:32:00Z'), open: 99, high: 99, low: 98.75, close: 98.75, volume: 600 },
          {
            time: t('2024-11-26T14:33:00Z'),
            open: 98.75,
            high: 99.25,
            low: 98.75,
            close: 99.25,
            volume: 340,
          },
        ]);
      },
      { timeout: 30_000, interval: 500 },
    );
  });

  it('serves the last priced trade as the latest price', async () => {
    const response = await local.get('/prices/latest?symbols=AAPL');
    expect(response.body).toEqual({ items: [{ symbol: 'AAPL', price: 99.25, volume: 300 }] });
  });

  it('stops on Ctrl-C, exit code 0', async () => {
    feed.kill('SIGINT');
    const [code] = await once(feed, 'exit');
    expect(code).toBe(0);
  });
});
