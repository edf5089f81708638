import { describe, expect, it } from 'vitest';
import { DynamoEventFeed } from '#adapters/dynamo/event-feed';
import type { FeedEvent } from '#domain/strat/ports';
import { localDocumentClient } from '../../scripts/local/dynamo.ts';
import { localTableName } from '../../scripts/local/tables.ts';
import { useLocalDynamo } from '../support/local-dynamo.ts';

/**
 * ADR 0009 against a real DynamoDB wire protocol (dynalite): writers appending at once, each with its own
 * client and connection pool as separate Lambda instances would have, while a reader polls with since_id.
 */
const dynamo = useLocalDynamo();

const feedOf = () =>
  new DynamoEventFeed<{ writer: number; n: number }>(
    localDocumentClient(dynamo().endpoint),
    { feed: localTableName('alerts'), guards: localTableName('eventGuards') },
    'concurrency-test',
  );

const event = (writer: number, n: number): FeedEvent<{ writer: number; n: number }> => ({
  onceKey: `w${writer}-n${n}`,
  triggeredAtMs: 1_700_000_000_000 + n,
  body: { writer, n },
});

describe('the alert feed with concurrent writers', () => {
  it('gives gapless ids in commit order: a reader polling with since_id never misses or repeats one', async () => {
    const writers = 6;
    const perWriter = 25;
    let done = false;
    const seen: number[] = [];

    const poll = (async () => {
      const reader = feedOf();
      let sinceId = 0;
      while (!done || seen.length < writers * perWriter) {
        const page = await reader.read({
          sinceId,
          fromMs: 0,
          limit: 7,
          accept: () => true,
          maxExamined: 100_000,
        });
        for (const stored of page.events) seen.push(stored.id);
        sinceId = page.events.at(-1)?.id ?? sinceId;
        if (page.events.length === 0) await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();

    await Promise.all(
      Array.from({ length: writers }, async (_, writer) => {
        const feed = feedOf();
        for (let n = 0; n < perWriter; n += 5) {
          await feed.append([0, 1, 2, 3, 4].map((k) => event(writer, n + k)));
        }
      }),
    );
    done = true;
    await poll;

    const total = writers * perWriter;
    expect(seen).toEqual(Array.from({ length: total }, (_, index) => index + 1));
    const all = await feedOf().read({
      sinceId: 0,
      fromMs: 0,
      limit: 1000,
      accept: () => true,
      maxExamined: 100_000,
    });
    const perWriterOrder = new Map<number, number[]>();
    for (const { body } of all.events)
      perWriterOrder.set(body.writer, [...(perWriterOrder.get(body.writer) ?? []), body.n]);
    for (const order of perWriterOrder.values()) expect(order).toEqual([...order].sort((a, b) => a - b));
  }, 120_000);

  it('appends an event with a known natural key once, however often and by whoever it is appended', async () => {
    const duplicates = Array.from({ length: 4 }, () => event(99, 1));
    const appended = await Promise.all(
      [feedOf(), feedOf()].map((feed) => feed.append(duplicates).catch(() => 0)),
    );
    await feedOf().append(duplicates);
    const stored = await feedOf().read({
      sinceId: 0,
      fromMs: 0,
      limit: 1000,
      accept: ({ body }) => body.writer === 99,
      maxExamined: 100_000,
    });
    expect(stored.events).toHaveLength(1);
    expect(appended.reduce((sum, count) => sum + count, 0)).toBe(1);
  });
});
