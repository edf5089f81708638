import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DynamoEventFeed } from '#adapters/dynamo/event-feed';
import type { FeedEvent } from '#domain/strat/ports';
import { localDocumentClient } from '../../scripts/local/dynamo.ts';
import { localTableName } from '../../scripts/local/tables.ts';
import { keysAndIds, writerKeysArb } from '../support/event-feeds.ts';
import { useLocalDynamo } from '../support/local-dynamo.ts';

/**
 * Exactly-once appends (docs/adr/0009-alert-ids-in-commit-order.md) against the real DynamoDB wire protocol,
 * with writers that stop dead at any call (a Lambda killed mid-batch) and writers that take over their
 * events once the guard is stale, as a redelivered batch does.
 */
const dynamo = useLocalDynamo();

const TABLES = { feed: localTableName('alerts'), guards: localTableName('eventGuards') };
const LATER_MS = 10 * 60_000;

class Crash extends Error {}

/** A document client that stops dead at its `crashAt`-th call (0-based): that call and all later throw. */
function crashingClient(crashAt: number | undefined) {
  const client = localDocumentClient(dynamo().endpoint);
  let calls = 0;
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      return (command: Parameters<typeof client.send>[0]) => {
        if (crashAt !== undefined && calls++ >= crashAt) return Promise.reject(new Crash('stopped'));
        return target.send(command);
      };
    },
  });
}

type Body = { key: string };
const feedOf = (name: string, options: { crashAt?: number; laterMs?: number } = {}) =>
  new DynamoEventFeed<Body>(
    crashingClient(options.crashAt),
    TABLES,
    name,
    () => Date.now() + (options.laterMs ?? 0),
  );
const event = (key: string): FeedEvent<Body> => ({
  onceKey: key,
  triggeredAtMs: 1_700_000_000_000,
  body: { key },
});

const stored = (name: string) => keysAndIds(feedOf(name));

describe('retention (docs/storage.md#alerts-and-breaks)', () => {
  it('gives an item its expiry only once a newer one exists, so the newest is kept and ids never restart', async () => {
    const name = 'retention';
    await feedOf(name).append([event('r1'), event('r2')]);
    await feedOf(name).append([event('r3')]);
    const expiries = await Promise.all(
      [1, 2, 3].map(async (id) => {
        const { Item } = await localDocumentClient(dynamo().endpoint).send(
          new GetCommand({ TableName: TABLES.feed, Key: { feed: name, id } }),
        );
        return Item?.expiresAt as number | undefined;
      }),
    );
    const inThirtyDays = Date.now() / 1000 + 30 * 86_400;
    expect(expiries[0]).toBeGreaterThan(inThirtyDays - 60);
    expect(expiries[1]).toBeGreaterThan(inThirtyDays - 60);
    expect(expiries[2]).toBeUndefined();
  });
});

describe('exactly-once appends', () => {
  it('lets only one of two writers take over a stale guard', async () => {
    const name = 'takeover-race';
    await localDocumentClient(dynamo().endpoint).send(
      new PutCommand({
        TableName: TABLES.guards,
        Item: { key: `${name}#k1`, createdAt: Date.now() - 5 * 60_000 },
      }),
    );
    await Promise.all(
      [feedOf(name), feedOf(name), feedOf(name)].map((feed) => feed.append([event('k1')]).catch(() => 0)),
    );
    expect((await stored(name)).keys).toEqual(['k1']);
  });

  it('does not append again an event whose writer stopped between the feed write and the guard update', async () => {
    const name = 'stopped-after-feed-write';
    // Calls of a first append: BatchGet guards, claim (Put), the last id (Query), the feed Put, then the guard.
    let crashAt = 0;
    for (; crashAt < 12; crashAt++) {
      const probe = `${name}-${crashAt}`;
      await feedOf(probe, { crashAt })
        .append([event('k1')])
        .catch(() => 0);
      if ((await stored(probe)).keys.length === 1) break;
    }
    const victim = `${name}-${crashAt}`;
    expect((await stored(victim)).keys).toEqual(['k1']);
    await feedOf(victim, { laterMs: LATER_MS }).append([event('k1'), event('k2')]);
    expect(await stored(victim)).toEqual({ keys: ['k1', 'k2'], ids: [1, 2] });
  });

  it('appends each event exactly once with gapless ids, whatever call concurrent writers stop at', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            keys: writerKeysArb,
            crashAt: fc.option(fc.nat({ max: 14 }), { nil: undefined }),
          }),
          { minLength: 2, maxLength: 3 },
        ),
        async (writers) => {
          const name = `property-${run++}`;
          await Promise.all(
            writers.map(({ keys, crashAt }) =>
              feedOf(name, { crashAt })
                .append(keys.map(event))
                .catch(() => 0),
            ),
          );
          // Each writer's batch comes again later, to a writer that does not stop (Lambda's redelivery).
          for (const { keys } of writers) await feedOf(name, { laterMs: LATER_MS }).append(keys.map(event));
          const expected = [...new Set(writers.flatMap(({ keys }) => keys))].sort();
          const { keys, ids } = await stored(name);
          expect([...keys].sort()).toEqual(expected);
          expect(ids).toEqual(expected.map((_, index) => index + 1));
        },
      ),
      { numRuns: 40 },
    );
  }, 240_000);
});
