import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  alpacaCancel,
  alpacaCorrection,
  alpacaTrade,
  type FakeProvider,
  type Message,
} from '../support/fake-providers.ts';
import {
  crashAndRefill,
  expectServedAsPrinted,
  lastMinuteBarTime,
  minuteBarsOver,
  startFeedRig,
  stopFeed,
  stopFeedRig,
  type TruePrint,
  trueMinuteBars,
} from '../support/feed-tape.ts';
import type { TestStack } from '../support/local-stack.ts';

/**
 * A day of Alpaca's stream as its users meet it, end to end (docs/data-sources.md): `npm run feed` against a
 * fake Alpaca server, into a local stack whose clock reads Tuesday 2024-11-26 10:00 New York. The tape has
 * the previous session's trades with the same ids as today's, a batched frame with an odd lot and a print at
 * 14:31:59.999999999, a 10x erroneous print and a correction sent after both were ingested, a network drop
 * whose gap fill meets a 429 on its second page, and a crash (SIGKILL) with trades printed while the feed was
 * down. After all of it the service's 1m bars and latest price over REST equal what the market printed.
 */
const at = (iso: string) => Date.parse(iso);
const trade = (id: number, time: string, price: number, size: number, conditions = ['@']): Message => ({
  ...alpacaTrade('AAPL', id, at(time), price, conditions),
  s: size,
});

/** Monday's session: ids 1 to 3, which Tuesday uses again. */
const MONDAY = [
  trade(1, '2024-11-25T14:31:00Z', 170.1, 100),
  trade(2, '2024-11-25T14:31:20Z', 170.4, 200),
  trade(3, '2024-11-25T14:32:05Z', 170.2, 100),
];
const ERRONEOUS = trade(2, '2024-11-26T14:31:02Z', 1802, 100);
const CORRECTED: Message = {
  ...trade(4, '2024-11-26T14:31:30Z', 180.3, 300),
  t: '2024-11-26T14:31:59.999999999Z',
};
/** One frame, as Alpaca batches messages. */
const FRAME = [
  trade(1, '2024-11-26T14:31:01Z', 180.1, 100),
  ERRONEOUS,
  trade(3, '2024-11-26T14:31:30Z', 180.25, 50, ['@', 'I']),
  CORRECTED,
  trade(5, '2024-11-26T14:32:00Z', 180.4, 100),
];
/** Printed while the connection is down: only the gap fill (two trades a page, a 429 on page 2) finds them. */
const DURING_DROP = [
  trade(7, '2024-11-26T14:32:10Z', 180.5, 100),
  trade(8, '2024-11-26T14:32:20Z', 180.35, 100),
  trade(9, '2024-11-26T14:32:40Z', 180.6, 100),
  trade(10, '2024-11-26T14:33:00Z', 180.55, 100),
];
/** Printed while the feed is crashed: only the restart's fill from its stored position finds them. */
const DURING_CRASH = [
  trade(11, '2024-11-26T14:33:10Z', 180.7, 100),
  trade(12, '2024-11-26T14:33:30Z', 180.65, 100, ['@', 'I']),
  trade(13, '2024-11-26T14:33:40Z', 180.8, 100),
];

/** What the market printed on each day, amended: the error out, the correction's size in. */
function truth(day: '2024-11-25' | '2024-11-26'): TruePrint[] {
  const printed = day === '2024-11-25' ? MONDAY : [...FRAME, ...DURING_DROP, ...DURING_CRASH];
  return printed
    .filter((message) => message !== ERRONEOUS)
    .map((message) => ({
      timestamp: Math.floor(Date.parse(String(message.t).replace(/(\.\d{3})\d+Z$/, '$1Z'))),
      price: message.p as number,
      size: message === CORRECTED ? 30 : (message.s as number),
      volumeOnly: (message.c as string[]).includes('I'),
    }));
}

let local: TestStack;
let fake: FakeProvider;
let feed: ChildProcess;

beforeAll(async () => {
  ({ local, fake, feed } = await startFeedRig('alpaca', { restPageSize: 2 }));
}, 90_000);

afterAll(() => stopFeedRig({ local, fake, feed }));

const lastBarTime = (date: string) => lastMinuteBarTime(local, 'AAPL', date);

describe('a day of the Alpaca stream, end to end', () => {
  it('counts both sessions of reused ids, the odd lot in volume only, the 59.999999999 s print in its minute', async () => {
    fake.publish(MONDAY);
    fake.publish(FRAME);
    await vi.waitFor(
      async () => expect(await lastBarTime('2024-11-26')).toBe(at('2024-11-26T14:32:00Z') / 1000),
      { timeout: 30_000, interval: 250 },
    );
    expect(await minuteBarsOver(local, 'AAPL', '2024-11-25')).toEqual(trueMinuteBars(truth('2024-11-25')));
    const [first] = await minuteBarsOver(local, 'AAPL', '2024-11-26');
    expect(first).toMatchObject({ high: 1802, close: 180.3, volume: 100 + 100 + 50 + 300 });
  });

  it('takes the erroneous print out and the corrected size in, after both were ingested', async () => {
    fake.publish([
      alpacaCancel(ERRONEOUS, 'E'),
      alpacaCorrection(CORRECTED, { id: 40, price: 180.3, size: 30 }),
    ]);
    await vi.waitFor(
      async () => {
        const [first] = await minuteBarsOver(local, 'AAPL', '2024-11-26');
        expect(first).toMatchObject({ high: 180.3, volume: 100 + 50 + 30 });
      },
      { timeout: 30_000, interval: 250 },
    );
  });

  it('fills a dropped connection from REST through a 429, and a crash from its stored position', async () => {
    fake.failRest({ page: 2, status: 429, retryAfter: '1' });
    fake.drop();
    fake.publish(DURING_DROP);
    await vi.waitFor(
      async () => expect(await lastBarTime('2024-11-26')).toBe(at('2024-11-26T14:33:00Z') / 1000),
      { timeout: 30_000, interval: 250 },
    );
    const tuesday = truth('2024-11-26');
    feed = await crashAndRefill(
      feed,
      fake,
      local,
      { feedName: 'alpaca', positionMs: at('2024-11-26T14:33:00Z') },
      DURING_CRASH,
      {
        symbol: 'AAPL',
        date: '2024-11-26',
        tape: tuesday,
      },
    );
    await expectServedAsPrinted(local, 'AAPL', tuesday, { date: '2024-11-25', tape: truth('2024-11-25') });
  }, 90_000);

  it('stops on Ctrl-C with exit code 0', async () => {
    expect(await stopFeed(feed)).toBe(0);
  });
});
