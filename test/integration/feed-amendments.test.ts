import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Message } from '../support/fake-providers.ts';
import { alpacaCancel, alpacaCorrection, alpacaTrade, type FakeProvider } from '../support/fake-providers.ts';
import { startFeedRig, stopFeedRig, trueMinuteBars } from '../support/feed-tape.ts';
import type { TestStack } from '../support/local-stack.ts';

/**
 * Cancels and corrections sent after their trades were put on the stream (docs/candles.md#amendments):
 * `npm run feed` against a fake Alpaca stream, into a local stack whose clock reads Tuesday 2024-11-26
 * 10:00 New York. A 10x erroneous print (1802 for 180.2) is cancelled, a 300-share trade corrected to 30,
 * and the last trade of the tape cancelled; the 1m candles and the latest price over REST then equal what
 * the market truly printed, computed here from the amended tape. The tape has no opening print and lasts
 * under five minutes, so the LULD band has no reference price yet (functions/domain/feed/price-band.ts):
 * the erroneous print goes through as a regular trade, as it would on a restart mid-session.
 */
const at = (hhmmss: string) => Date.parse(`2024-11-26T${hhmmss}Z`);

/** [time, price, size]: the tape as printed. */
const PRINTS: [string, number, number][] = [
  ['14:31:01', 180.1, 100],
  ['14:31:02', 1802, 100],
  ['14:31:04.500', 180.2, 100],
  ['14:32:00', 181, 300],
  ['14:32:30', 180.9, 100],
  ['14:33:10', 181.4, 100],
  ['14:33:20', 182.5, 200],
];
const messages: Message[] = PRINTS.map(([time, price, size], index) => ({
  ...alpacaTrade('AAPL', index + 1, at(time), price),
  s: size,
}));
const [, erroneous, , large, , , last] = messages as [
  Message,
  Message,
  Message,
  Message,
  Message,
  Message,
  Message,
];

/** What the market truly printed: the tape without the cancelled trades, with the corrected size. */
const TRUE_TAPE = PRINTS.flatMap(([time, price, size], index) => {
  if (index === 1 || index === 6) return [];
  return [{ timestamp: at(time), price, size: index === 3 ? 30 : size }];
});

let local: TestStack;
let fake: FakeProvider;
let feed: ChildProcess;

beforeAll(async () => {
  ({ local, fake, feed } = await startFeedRig('alpaca'));
}, 90_000);

afterAll(() => stopFeedRig({ local, fake, feed }));

const candles = (query: string) => local.candles('AAPL', query);
const MINUTES = '?interval=1m&start=2024-11-26&end=2024-11-26T14:34:00Z';

describe('cancels and corrections of trades already ingested, from a fake Alpaca stream', () => {
  it('serves the erroneous print first, as it was put on the stream', async () => {
    fake.publish(messages);
    await vi.waitFor(
      async () => {
        const { bars } = await candles(MINUTES);
        expect(bars).toHaveLength(3);
        expect(bars[0]?.high).toBe(1802);
        expect(bars[2]?.close).toBe(182.5);
      },
      { timeout: 30_000, interval: 300 },
    );
  });

  it('serves 1m candles and the latest price equal to the amended tape once the amendments come', async () => {
    fake.publish([
      alpacaCancel(erroneous, 'E'),
      alpacaCorrection(large, { id: 100, price: 181, size: 30 }),
      alpacaCancel(last),
    ]);
    await vi.waitFor(
      async () => {
        expect((await candles(MINUTES)).bars).toEqual(trueMinuteBars(TRUE_TAPE));
      },
      { timeout: 30_000, interval: 300 },
    );
    const truth = TRUE_TAPE.at(-1);
    expect((await local.get('/prices/latest?symbols=AAPL')).body).toEqual({
      items: [{ symbol: 'AAPL', price: truth?.price, volume: truth?.size }],
    });
    expect((await local.get('/states/AAPL')).body).toMatchObject({
      price: {
        price: truth?.price,
        volume: truth?.size,
        time: new Date(truth?.timestamp ?? 0).toISOString(),
      },
    });
    const [day] = (await candles('?interval=1d&start=2024-11-26&end=2024-11-26')).bars;
    expect(day).toMatchObject({ high: 181.4, volume: 430 });
  });
});
