import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { batchPutAll } from '#adapters/dynamo/batch';
import { DynamoEventFeed } from '#adapters/dynamo/event-feed';
import { ALERTS_MAX_EXAMINED } from '#domain/requests/limits';
import { localDocumentClient } from '../../scripts/local/dynamo.ts';
import { localTableName } from '../../scripts/local/tables.ts';
import { useLocalDynamo } from '../support/local-dynamo.ts';

/**
 * The per-request read bound of the alert and break feeds (docs/partner-guide.md#polling-past-a-narrow-filter)
 * against dynalite: the items a read returns from DynamoDB, counted on the wire.
 */
const dynamo = useLocalDynamo();
const EVENTS = ALERTS_MAX_EXAMINED + 1_500;
const firstMs = Date.parse('2024-11-20T15:00:00Z');

beforeAll(async () => {
  // The feed's items and head as appends leave them (ids 1..n), written in batches: the reads are under test.
  await localDocumentClient(dynamo().endpoint).send(
    new PutCommand({
      TableName: localTableName('eventGuards'),
      Item: { key: 'read-bound@head', lastId: EVENTS },
    }),
  );
  await batchPutAll(
    localDocumentClient(dynamo().endpoint),
    localTableName('alerts'),
    Array.from({ length: EVENTS }, (_, n) => ({
      feed: 'read-bound',
      id: n + 1,
      onceKey: `e${n}`,
      triggeredAtMs: firstMs + n * 60_000,
      body: { n, kind: n % 50 === 0 ? 'rare' : 'common' },
    })),
  );
}, 600_000);

/** A feed whose client counts the items DynamoDB returned to it (`nowMs`: the feed's clock). */
function feed(nowMs?: () => number) {
  const client = localDocumentClient(dynamo().endpoint);
  const counter = { items: 0 };
  const counting = new Proxy(client, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      return async (command: Parameters<typeof client.send>[0]) => {
        const output = (await target.send(command)) as { Items?: unknown[] };
        counter.items += output.Items?.length ?? 0;
        return output;
      };
    },
  });
  return {
    feed: new DynamoEventFeed<{ n: number; kind: string }>(
      counting,
      { feed: localTableName('alerts'), guards: localTableName('eventGuards') },
      'read-bound',
      nowMs,
    ),
    counter,
  };
}

describe('a feed read', () => {
  it('examines at most the bound, with a filter that matches nothing, and says where it stopped', async () => {
    const { feed: reader, counter } = feed();
    const page = await reader.read({
      sinceId: 0,
      fromMs: 0,
      limit: 100,
      accept: () => false,
      maxExamined: ALERTS_MAX_EXAMINED,
    });
    expect(page).toEqual({ events: [], lastExaminedId: ALERTS_MAX_EXAMINED });
    // The window's first events (100) and the bound: never the feed's whole length.
    expect(counter.items).toBeLessThanOrEqual(ALERTS_MAX_EXAMINED + 100);
    const next = await reader.read({
      sinceId: page.lastExaminedId,
      fromMs: 0,
      limit: 100,
      accept: ({ body }) => body.n === EVENTS - 1,
      maxExamined: ALERTS_MAX_EXAMINED,
    });
    expect(next.events.map(({ id }) => id)).toEqual([EVENTS]);
  });

  it('starts at the window’s first event, not at the feed’s first, without since_id', async () => {
    const { feed: reader, counter } = feed();
    const page = await reader.read({
      fromMs: firstMs + (EVENTS - 10) * 60_000,
      limit: 100,
      accept: () => true,
      maxExamined: ALERTS_MAX_EXAMINED,
    });
    expect(page.events.map(({ body }) => body.n)).toEqual(
      Array.from({ length: 10 }, (_, k) => EVENTS - 10 + k),
    );
    expect(counter.items).toBeLessThanOrEqual(20);
  });

  it('jumps an old since_id to the window', async () => {
    const { feed: reader, counter } = feed();
    const page = await reader.read({
      sinceId: 1,
      fromMs: firstMs + (EVENTS - 3) * 60_000,
      limit: 100,
      accept: () => true,
      maxExamined: ALERTS_MAX_EXAMINED,
    });
    expect(page.events.map(({ id }) => id)).toEqual([EVENTS - 2, EVENTS - 1, EVENTS]);
    expect(counter.items).toBeLessThanOrEqual(6);
  });

  it('applies a narrow filter in DynamoDB: the items it leaves out never come over the wire', async () => {
    const { feed: reader, counter } = feed();
    const page = await reader.read({
      sinceId: 0,
      fromMs: 0,
      limit: 1000,
      bodyMatch: { kind: ['rare'] },
      accept: ({ body }) => body.kind === 'rare',
      maxExamined: ALERTS_MAX_EXAMINED,
    });
    expect(page.events.map(({ body }) => body.n)).toEqual(
      Array.from({ length: ALERTS_MAX_EXAMINED / 50 }, (_, k) => k * 50),
    );
    // Where DynamoDB stopped examining, though the last items it examined were left out.
    expect(page.lastExaminedId).toBe(ALERTS_MAX_EXAMINED);
    // The window's first events (100) and the matches.
    expect(counter.items).toBeLessThanOrEqual(100 + ALERTS_MAX_EXAMINED / 50);
  });

  it('stops once its time is spent, answering what it examined and where it stopped', async () => {
    // A clock that moves a second each time the read looks at it: storage under load.
    let clockMs = 0;
    const { feed: reader } = feed(() => {
      clockMs += 1_000;
      return clockMs;
    });
    const page = await reader.read({
      sinceId: 0,
      fromMs: 0,
      limit: 1000,
      accept: ({ body }) => body.kind === 'rare',
      maxExamined: ALERTS_MAX_EXAMINED,
      budgetMs: 2_500,
    });
    const stoppedAt = page.lastExaminedId ?? 0;
    expect(stoppedAt).toBeGreaterThan(0);
    expect(stoppedAt).toBeLessThan(ALERTS_MAX_EXAMINED);
    // Every match up to where it stopped, none after.
    expect(page.events.map(({ id }) => id)).toEqual(
      Array.from({ length: Math.ceil(stoppedAt / 50) }, (_, k) => k * 50 + 1),
    );
  });
});
