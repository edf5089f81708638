import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DynamoEventFeed } from '#adapters/dynamo/event-feed';
import type { FeedEvent } from '#domain/strat/ports';
import { localDocumentClient } from '../../scripts/local/dynamo.ts';
import { localTableName, scanLocalTable } from '../../scripts/local/tables.ts';
import { everyEvent } from '../support/event-feeds.ts';
import { useLocalDynamo } from '../support/local-dynamo.ts';
import { stoppingClient } from '../support/stopping-client.ts';

/**
 * Appending a batch's events as blocks (docs/adr/0009-alert-ids-in-commit-order.md) against dynalite: the
 * writes an event costs, the split of a large batch into blocks, and a reader that never sees a block its
 * writer has not committed.
 */
const dynamo = useLocalDynamo();
const TABLES = { feed: localTableName('alerts'), guards: localTableName('eventGuards') };

type Body = { n: number; pad: string };

/** The file's dynalite as a writer that counts its writes and stops dead at its `crashAt`-th call. */
const countingClient = (crashAt?: number) => stoppingClient(localDocumentClient(dynamo().endpoint), crashAt);

/** `padBytes` of text that does not compress (a block record stores its events gzipped). */
const pad = (n: number, padBytes: number) => {
  let text = '';
  for (let part = 0; text.length < padBytes; part++) {
    text += createHash('sha256').update(`${n}/${part}`).digest('base64');
  }
  return text.slice(0, padBytes);
};

const events = (count: number, padBytes = 0): FeedEvent<Body>[] =>
  Array.from({ length: count }, (_, n) => ({
    onceKey: `e${n}`,
    triggeredAtMs: 1_700_000_000_000 + n,
    body: { n, pad: pad(n, padBytes) },
  }));

const feedOf = (name: string, client = localDocumentClient(dynamo().endpoint), laterMs = 0) =>
  new DynamoEventFeed<Body>(client, TABLES, name, () => Date.now() + laterMs);

async function readAll(name: string) {
  return (await everyEvent(feedOf(name))).map(({ id, body }) => ({ id, n: body.n }));
}

describe('appending a batch as blocks', () => {
  it('writes a batch of 200 events with about two items written per event, not five', async () => {
    const { client, counts } = countingClient();
    expect(await feedOf('cost', client).append(events(200))).toBe(200);
    // 200 feed items, 200 once-key records, the block record, the head and the predecessor's expiry.
    expect(counts.writtenItems).toBeLessThanOrEqual(2 * 200 + 3);
    expect(await readAll('cost')).toEqual(events(200).map((_, index) => ({ id: index + 1, n: index })));
  });

  it('splits a batch larger than one block record into consecutive blocks, ids gapless and in order', async () => {
    // 1,500 events of about 1 KB each that do not compress: several blocks of at most 300 KB.
    expect(await feedOf('large', localDocumentClient(dynamo().endpoint)).append(events(1_500, 1_000))).toBe(
      1_500,
    );
    const stored = await readAll('large');
    expect(stored.map(({ n }) => n)).toEqual(events(1_500).map((_, index) => index));
    expect(stored.map(({ id }) => id)).toEqual(events(1_500).map((_, index) => index + 1));
    const guards = await scanLocalTable(localDocumentClient(dynamo().endpoint), 'eventGuards');
    expect(guards.filter(({ key }) => String(key).startsWith('large@block@')).length).toBeGreaterThan(1);
  });

  it('shows a reader nothing of a block whose writer stopped before committing it, until the next writer completes it', async () => {
    const name = 'uncommitted';
    await feedOf(name).append(events(3));
    // Calls of an append: the head, the next block, the once-key records, the block record, then its items.
    const { client } = countingClient(5);
    await feedOf(name, client)
      .append(events(10).slice(3))
      .catch(() => 0);
    expect(await readAll(name)).toEqual([0, 1, 2].map((n) => ({ id: n + 1, n })));
    expect(await feedOf(name, undefined, 60_000).append(events(11).slice(10))).toBe(1);
    expect(await readAll(name)).toEqual(events(11).map((_, index) => ({ id: index + 1, n: index })));
  });
});
