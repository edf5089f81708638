import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type FakeProvider,
  fixture,
  type Message,
  polygonTrade,
  SIP_NANOS,
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
 * A day of Massive's (Polygon.io's) stocks stream as its users meet it, end to end
 * (docs/data-sources.md): `npm run feed` against a fake Massive server, into a local stack whose clock reads
 * Tuesday 2024-11-26 10:00 New York. The tape has the previous session's ids used again, two off-exchange
 * prints with the same exchange and id on two TRFs, an odd lot, a `max_connections` kick in the middle of the
 * stream whose gap fill meets a 429 on its second page and carries a nanosecond time at 14:32:59.999999999,
 * and a crash (SIGKILL) with trades printed while the feed was down. After all of it the service's 1m bars
 * and latest price over REST equal what the market printed. (Massive's streams carry no cancels or
 * corrections: docs/data-sources.md#corrections-and-cancels.)
 */
const at = (iso: string) => Date.parse(iso);
const trade = (
  id: number,
  time: string,
  price: number,
  size: number,
  extra: Partial<Message> = {},
): Message => ({
  ...polygonTrade('AAPL', id, at(time), price),
  s: size,
  ...extra,
});
const ODD_LOT = [37];

const MONDAY = [
  trade(1, '2024-11-25T14:31:00Z', 170.1, 100),
  trade(2, '2024-11-25T14:31:20Z', 170.4, 200),
  trade(3, '2024-11-25T14:32:05Z', 170.2, 100),
];
/** One frame: two prints with exchange 4 and id 7, one through each of two TRFs, are two trades. */
const FRAME = [
  trade(1, '2024-11-26T14:31:01Z', 180.1, 100),
  trade(7, '2024-11-26T14:31:10Z', 180.2, 100, { x: 4, trfi: 201, trft: at('2024-11-26T14:31:10Z') }),
  trade(7, '2024-11-26T14:31:11Z', 180.15, 200, { x: 4, trfi: 202, trft: at('2024-11-26T14:31:11Z') }),
  trade(3, '2024-11-26T14:31:30Z', 180.3, 40, { c: ODD_LOT }),
  trade(5, '2024-11-26T14:32:00Z', 180.4, 100),
];
/** Printed after the kick, before the reconnect: the last one's SIP time is 14:32:59.999999999. */
const LAST_NANOS = BigInt(at('2024-11-26T14:32:59.999Z')) * 1_000_000n + 999_999n;
const DURING_KICK = [
  trade(8, '2024-11-26T14:32:10Z', 180.5, 100),
  trade(9, '2024-11-26T14:32:20Z', 180.35, 100),
  trade(10, '2024-11-26T14:32:40Z', 180.6, 100),
  { ...trade(11, '2024-11-26T14:32:59.999Z', 180.7, 100), [SIP_NANOS]: LAST_NANOS },
];
const DURING_CRASH = [
  trade(12, '2024-11-26T14:33:10Z', 180.75, 100),
  trade(13, '2024-11-26T14:33:30Z', 180.65, 60, { c: ODD_LOT }),
  trade(14, '2024-11-26T14:33:40Z', 180.8, 100),
];

function truth(day: '2024-11-25' | '2024-11-26'): TruePrint[] {
  const printed = day === '2024-11-25' ? MONDAY : [...FRAME, ...DURING_KICK, ...DURING_CRASH];
  return printed.map((message) => ({
    timestamp: message.t as number,
    price: message.p as number,
    size: message.s as number,
    volumeOnly: (message.c as number[]).includes(37),
  }));
}

let local: TestStack;
let fake: FakeProvider;
let feed: ChildProcess;

beforeAll(async () => {
  ({ local, fake, feed } = await startFeedRig('polygon', { restPageSize: 2 }));
}, 90_000);

afterAll(() => stopFeedRig({ local, fake, feed }));

const lastBarTime = (date: string) => lastMinuteBarTime(local, 'AAPL', date);

describe('a day of the Massive stocks stream, end to end', () => {
  it('counts both sessions of reused ids, both TRF prints, and the odd lot in volume only', async () => {
    fake.publish(MONDAY);
    fake.publish(FRAME);
    await vi.waitFor(
      async () => expect(await lastBarTime('2024-11-26')).toBe(at('2024-11-26T14:32:00Z') / 1000),
      { timeout: 30_000, interval: 250 },
    );
    expect(await minuteBarsOver(local, 'AAPL', '2024-11-25')).toEqual(trueMinuteBars(truth('2024-11-25')));
    const [first] = await minuteBarsOver(local, 'AAPL', '2024-11-26');
    expect(first).toEqual(trueMinuteBars(truth('2024-11-26'))[0]);
    expect(first?.volume).toBe(100 + 100 + 200 + 40);
  });

  it('fills a max_connections kick from REST through a 429, nanosecond times in their minute', async () => {
    fake.failRest({ page: 2, status: 429, retryAfter: '1' });
    fake.sendThenClose([fixture('polygon/max-connections')]);
    fake.publish(DURING_KICK);
    await vi.waitFor(
      async () => {
        const bars = await minuteBarsOver(local, 'AAPL', '2024-11-26');
        expect(bars.at(-1)).toMatchObject({ time: at('2024-11-26T14:32:00Z') / 1000, close: 180.7 });
      },
      { timeout: 30_000, interval: 250 },
    );
  });

  it('fills a crash from its stored position; the bars and latest price are the tape', async () => {
    const tuesday = truth('2024-11-26');
    feed = await crashAndRefill(
      feed,
      fake,
      local,
      { feedName: 'polygon-stocks', positionMs: at('2024-11-26T14:32:59.999Z') },
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
