import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DynamoEventFeed } from '#adapters/dynamo/event-feed';
import { TABLES as TABLE_DEFINITIONS } from '#contracts/tables';
import type { FeedEvent } from '#domain/strat/ports';
import { localDocumentClient } from '../../scripts/local/dynamo.ts';
import { localTableName, scanLocalTable } from '../../scripts/local/tables.ts';
import { keysAndIds, writerKeysArb } from '../support/event-feeds.ts';
import { useLocalDynamo } from '../support/local-dynamo.ts';
import { StoppedDead, stoppingClient } from '../support/stopping-client.ts';

/**
 * Alerts marked with the feed's head before their commit (`madeAfterId`, docs/adr/0009-alert-ids-in-commit-order.md):
 * no once-key record each, found again among the items appended since; and the `byTime` index holding one
 * item per block, not one per event. Against dynalite, with writers that stop dead at any call.
 */
const dynamo = useLocalDynamo();
const TABLES = { feed: localTableName('alerts'), guards: localTableName('eventGuards') };
const BY_TIME = TABLE_DEFINITIONS.alerts.indexes[0].name;
const FIRST_MS = 1_700_000_000_000;
/** Past the time a block's writer has to commit it: the next writer completes it. */
const LATER_MS = 10 * 60_000;

type Body = { key: string };

/** The file's dynalite as a writer that counts its writes and stops dead at its `crashAt`-th call. */
const countingClient = (crashAt?: number) => stoppingClient(localDocumentClient(dynamo().endpoint), crashAt);

const feedOf = (name: string, options: { crashAt?: number; laterMs?: number } = {}) =>
  new DynamoEventFeed<Body>(
    countingClient(options.crashAt).client,
    TABLES,
    name,
    () => Date.now() + (options.laterMs ?? 0),
  );

/** Event `key`, made after the feed's head was `madeAfterId`, at `atMs`, maybe with a symbol. */
const marked = (
  key: string,
  madeAfterId: number,
  options: { atMs?: number; symbol?: string } = {},
): FeedEvent<Body> => ({
  onceKey: key,
  triggeredAtMs: options.atMs ?? FIRST_MS,
  ...(options.symbol === undefined ? {} : { symbol: options.symbol }),
  madeAfterId,
  body: { key },
});

const stored = (name: string) => keysAndIds(feedOf(name));

/**
 * The file's dynalite as a writer killed while its first `lost` call was in flight: that call never reaches
 * the store, the calls sent beside it do, and then the lost one fails with StoppedDead.
 */
function holedClient(lost: string) {
  const client = localDocumentClient(dynamo().endpoint);
  const sent: Promise<unknown>[] = [];
  let lostOne = false;
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      return (command: Parameters<typeof client.send>[0]) => {
        if (lostOne || command.constructor.name !== lost) {
          const result = target.send(command);
          sent.push(result);
          return result;
        }
        lostOne = true;
        return new Promise((_, reject) =>
          setImmediate(async () => {
            await Promise.allSettled(sent);
            reject(new StoppedDead('killed in flight'));
          }),
        );
      };
    },
  });
}

/** The feed's once-key records (`<feed>#<key>`): marked events leave none. */
async function onceKeyRecords(name: string) {
  const guards = await scanLocalTable(localDocumentClient(dynamo().endpoint), 'eventGuards');
  return guards.filter((item) => String(item.key).startsWith(`${name}#`));
}

async function byTimeEntries(name: string) {
  const output = await localDocumentClient(dynamo().endpoint).send(
    new QueryCommand({
      TableName: TABLES.feed,
      IndexName: BY_TIME,
      KeyConditionExpression: 'feed = :feed',
      ExpressionAttributeValues: { ':feed': name },
    }),
  );
  return (output.Items ?? []).map((item) => ({ id: item.id as number, ms: item.triggeredAtMs as number }));
}

describe('marked events: no once-key record each', () => {
  it('writes about one item per marked event: its feed item, no once-key record', async () => {
    const { client, counts } = countingClient();
    const feed = new DynamoEventFeed<Body>(client, TABLES, 'one-item-each');
    const events = Array.from({ length: 200 }, (_, n) => marked(`m${n}`, 0));
    expect(await feed.append(events)).toBe(200);
    // 200 feed items, the block record, the head (created, then moved), nothing per event besides.
    expect(counts.writtenItems).toBeLessThanOrEqual(200 + 3);
    expect(await onceKeyRecords('one-item-each')).toEqual([]);
    expect((await stored('one-item-each')).ids).toEqual(events.map((_, index) => index + 1));
  });

  it('appends nothing twice when a redelivery groups the commits of two rounds differently', async () => {
    const name = 'regrouped';
    // Round 1 commits A1 and B1 after reading head 0; round 2 commits A2 after reading head 2.
    const feed = feedOf(name);
    expect(await feed.append([marked('A1', 0), marked('B1', 0)])).toBe(2);
    // Another writer's events land in between.
    expect(await feedOf(name).append([marked('C1', 2)])).toBe(1);
    expect(await feed.append([marked('A2', 2)])).toBe(1);
    // The redelivery recovers A's last commit (round 2) with B's (round 1) in one call, then again with more.
    expect(await feedOf(name).append([marked('A2', 2), marked('B1', 0)])).toBe(0);
    expect(await feedOf(name).append([marked('B1', 0), marked('C1', 2), marked('A3', 4)])).toBe(1);
    expect(await stored(name)).toEqual({ keys: ['A1', 'B1', 'C1', 'A2', 'A3'], ids: [1, 2, 3, 4, 5] });
    expect(await onceKeyRecords(name)).toEqual([]);
  });

  it('appends each marked event once with gapless ids, whatever call a writer stops at before its redelivery', async () => {
    for (let crashAt = 0; crashAt < 14; crashAt++) {
      const name = `stopped-at-${crashAt}`;
      await feedOf(name).append([marked('before', 0)]);
      const events = Array.from({ length: 60 }, (_, n) => marked(`k${n}`, 1));
      await feedOf(name, { crashAt })
        .append(events)
        .catch((error: unknown) => {
          if (!(error instanceof StoppedDead)) throw error;
        });
      // The batch is delivered again (regrouped: the second half first), later, to a writer that does not stop.
      const redelivery = feedOf(name, { laterMs: LATER_MS });
      await redelivery.append(events.slice(30));
      await redelivery.append(events);
      const { keys, ids } = await stored(name);
      expect([...keys].sort()).toEqual(['before', ...events.map(({ onceKey }) => onceKey)].sort());
      expect(ids).toEqual(keys.map((_, index) => index + 1));
      expect(await onceKeyRecords(name)).toEqual([]);
    }
  }, 120_000);

  it('appends each marked event exactly once with gapless ids, whatever call concurrent writers stop at', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            keys: writerKeysArb,
            crashAt: fc.option(fc.nat({ max: 10 }), { nil: undefined }),
            // As the ingest appends: from the head it read before its commit (1), or reading it.
            fromReadHead: fc.boolean(),
          }),
          { minLength: 2, maxLength: 3 },
        ),
        fc.array(
          fc.record({
            cut: fc.nat({ max: 5 }),
            // The redelivery's own head: none, read just before, or the first delivery's (stale by now).
            knownHead: fc.constantFrom('none', 'fresh', 'stale'),
          }),
          { minLength: 1, maxLength: 3 },
        ),
        async (writers, redeliveries) => {
          const name = `marked-property-${run++}`;
          await feedOf(name).append([marked('earlier', 0)]);
          // Every event was made after the head was 1 (its commit came after that read).
          const event = (key: string) => marked(key, 1);
          await Promise.all(
            writers.map(({ keys, crashAt, fromReadHead }) =>
              feedOf(name, { crashAt })
                .append(keys.map(event), fromReadHead ? { knownHead: 1 } : {})
                .catch(() => 0),
            ),
          );
          // Redelivered later, grouped otherwise: all the writers' events in calls cut where the cuts say.
          const all = [...new Set(writers.flatMap(({ keys }) => keys))].reverse();
          let from = 0;
          for (const { cut, knownHead } of [...redeliveries, { cut: all.length, knownHead: 'none' }]) {
            const to = Math.min(all.length, from + cut);
            const feed = feedOf(name, { laterMs: LATER_MS });
            const head = { none: undefined, fresh: await feed.head(), stale: 1 }[knownHead];
            await feed.append(all.slice(from, to).map(event), head === undefined ? {} : { knownHead: head });
            from = to;
          }
          const { keys, ids } = await stored(name);
          expect([...keys].sort()).toEqual(['earlier', ...all].sort());
          expect(ids).toEqual(keys.map((_, index) => index + 1));
          expect(await onceKeyRecords(name)).toEqual([]);
        },
      ),
      { numRuns: 30 },
    );
  }, 240_000);
});

describe('appending from a known head', () => {
  it('reserves right after it with no read of the head first, and moves the head on', async () => {
    const name = 'known-head';
    await feedOf(name).append([marked('first', 0)]);
    const writer = countingClient();
    const feed = new DynamoEventFeed<Body>(writer.client, TABLES, name);
    // As the ingest does: the head read before the commit, then the append from it.
    expect(await feed.head()).toBe(1);
    expect(await feed.append([marked('second', 1)], { knownHead: 1 })).toBe(1);
    // The block record first, then its item and the predecessor's expiry, then the head: nothing read.
    const appendCommands = writer.commands.slice(1);
    expect(appendCommands[0]).toBe('PutCommand');
    expect([...appendCommands].sort()).toEqual([
      'BatchWriteCommand',
      'PutCommand',
      'UpdateCommand',
      'UpdateCommand',
    ]);
    expect(await feedOf(name).head()).toBe(2);
    expect(await stored(name)).toEqual({ keys: ['first', 'second'], ids: [1, 2] });
  });

  it('never starts the head past items a stopped writer left unwritten in a new feed’s first block', async () => {
    const name = 'first-block-holes';
    const events = Array.from({ length: 60 }, (_, n) => marked(`k${n}`, 0));
    // The writer's first BatchWrite (items 1-25) is lost as it is killed; the later two were already done.
    const writer = holedClient('BatchWriteCommand');
    const feed = new DynamoEventFeed<Body>(writer, TABLES, name);
    const head = await feed.head();
    expect(head).toBe(0);
    await expect(feed.append(events, { knownHead: head })).rejects.toThrow(StoppedDead);
    const written = await scanLocalTable(localDocumentClient(dynamo().endpoint), 'alerts');
    expect(
      written
        .filter((item) => item.feed === name)
        .map((item) => item.id as number)
        .sort((a, b) => a - b),
    ).toEqual(Array.from({ length: 35 }, (_, n) => 26 + n));
    // A reader stops before the holes; the next writer (the redelivery) completes the block from its record.
    expect(await feedOf(name).head()).toBe(0);
    const redelivery = feedOf(name, { laterMs: LATER_MS });
    expect(await redelivery.append(events, { knownHead: await redelivery.head() })).toBe(0);
    const { keys, ids } = await stored(name);
    expect([...keys].sort()).toEqual(events.map(({ onceKey }) => onceKey).sort());
    expect(ids).toEqual(keys.map((_, index) => index + 1));
    expect(await feedOf(name).head()).toBe(60);
  });

  it('starts the head of a feed appended before blocks, which had none', async () => {
    const name = 'known-head-legacy';
    const client = localDocumentClient(dynamo().endpoint);
    for (const id of [1, 2]) {
      await client.send(
        new PutCommand({
          TableName: TABLES.feed,
          Item: { feed: name, id, onceKey: `old${id}`, triggeredAtMs: FIRST_MS, body: { key: `old${id}` } },
        }),
      );
    }
    const feed = feedOf(name);
    const head = await feed.head();
    expect(head).toBe(2);
    expect(await feed.append([marked('new', head)], { knownHead: head })).toBe(1);
    // The head record itself, which readers and later writers stop at.
    const record = await client.send(
      new GetCommand({ TableName: TABLES.guards, Key: { key: `${name}@head` }, ConsistentRead: true }),
    );
    expect(record.Item?.lastId).toBe(3);
    expect(await stored(name)).toEqual({ keys: ['old1', 'old2', 'new'], ids: [1, 2, 3] });
  });
});

describe('a large block', () => {
  it('is left to its writer for longer, the more events it holds: a live writer is not doubled by a helper', async () => {
    const name = 'large-block-help';
    const events = Array.from({ length: 3_000 }, (_, n) => marked(`big${n}`, 0));
    // The writer stops right after reserving its block (on a new feed: the head, the last item, the head
    // put, the next block, the block put).
    await feedOf(name, { crashAt: 5 })
      .append(events)
      .catch((error: unknown) => {
        if (!(error instanceof StoppedDead)) throw error;
      });
    expect((await onceKeyRecords(name)).length + (await stored(name)).keys.length).toBe(0);
    const guards = await scanLocalTable(localDocumentClient(dynamo().endpoint), 'eventGuards');
    expect(guards.some(({ key }) => key === `${name}@block@1`)).toBe(true);
    // A writer 3 s later finds the block: past 2 s, but a 3,000-event block is given 2 s more than that.
    const { client, counts } = countingClient();
    const waiting = new DynamoEventFeed<Body>(client, TABLES, name, () => Date.now() + 3_000).append([
      marked('late', 0),
    ]);
    // Meanwhile the block is completed (here by a writer much later, as its own writer would).
    expect(await feedOf(name, { laterMs: LATER_MS }).append([marked('other', 0)])).toBe(1);
    expect(await waiting).toBe(1);
    // The waiting writer wrote its own event's block only: no item of the large block.
    expect(counts.writtenItems).toBeLessThan(10);
    const { keys, ids } = await stored(name);
    expect(keys).toHaveLength(3_002);
    expect(ids).toEqual(keys.map((_, index) => index + 1));
  }, 60_000);
});

describe('the byTime index: one item per block', () => {
  it('holds a block by its first item at the block’s latest time, and a future’s alert at its own', async () => {
    const name = 'sparse-index';
    const feed = feedOf(name);
    const minute = (n: number) => FIRST_MS + n * 60_000;
    const first = Array.from({ length: 100 }, (_, n) =>
      marked(`a${n}`, 0, { atMs: minute(n), ...(n === 40 ? { symbol: 'ES1!' } : {}) }),
    );
    const second = Array.from({ length: 100 }, (_, n) => marked(`b${n}`, 100, { atMs: minute(100 + n) }));
    expect(await feed.append(first)).toBe(100);
    expect(await feed.append(second)).toBe(100);
    expect(await byTimeEntries(name)).toEqual([
      { id: 41, ms: minute(40) },
      { id: 1, ms: minute(99) },
      { id: 101, ms: minute(199) },
    ]);
    // A window from any instant starts at or before its first event, and each event keeps its own time.
    for (const n of [0, 40, 99, 100, 150, 199]) {
      const page = await feed.read({
        fromMs: minute(n),
        limit: 1_000,
        accept: () => true,
        maxExamined: 1_000,
      });
      expect(page.events.map(({ id }) => id)).toEqual(Array.from({ length: 200 - n }, (_, i) => n + 1 + i));
      expect(page.events.map(({ triggeredAtMs }) => triggeredAtMs)).toEqual(
        Array.from({ length: 200 - n }, (_, i) => minute(n + i)),
      );
    }
    expect(await feed.read({ fromMs: minute(200), limit: 10, accept: () => true, maxExamined: 10 })).toEqual({
      events: [],
    });
    expect(await feed.readBySymbol('ES1!', minute(0), minute(199))).toEqual([
      { id: 41, triggeredAtMs: minute(40), body: { key: 'a40' } },
    ]);
  });

  it('reads items written before the index was sparse (their own time in triggeredAtMs) with the new ones', async () => {
    const name = 'dense-then-sparse';
    const client = localDocumentClient(dynamo().endpoint);
    for (const id of [1, 2, 3]) {
      await client.send(
        new PutCommand({
          TableName: TABLES.feed,
          Item: {
            feed: name,
            id,
            triggeredAtMs: FIRST_MS + id,
            onceKey: `old${id}`,
            body: { key: `old${id}` },
          },
        }),
      );
    }
    const feed = feedOf(name);
    expect(
      await feed.append([
        marked('new4', 3, { atMs: FIRST_MS + 4 }),
        marked('new5', 3, { atMs: FIRST_MS + 5 }),
      ]),
    ).toBe(2);
    const page = await feed.read({ fromMs: FIRST_MS + 2, limit: 10, accept: () => true, maxExamined: 10 });
    expect(page.events.map(({ id, triggeredAtMs }) => ({ id, triggeredAtMs }))).toEqual(
      [2, 3, 4, 5].map((id) => ({ id, triggeredAtMs: FIRST_MS + id })),
    );
  });
});
