import fc from 'fast-check';
import type { EventFeed, StoredEvent } from '#domain/strat/ports';

/** Every event a feed holds, in id order: one read from the start, no filter, bounds no test reaches. */
export async function everyEvent<Body>(feed: EventFeed<Body>): Promise<StoredEvent<Body>[]> {
  const page = await feed.read({
    sinceId: 0,
    fromMs: 0,
    limit: 100_000,
    accept: () => true,
    maxExamined: 100_000,
  });
  return page.events;
}

/** The keys and ids of every event of a feed whose bodies carry their event's key. */
export async function keysAndIds(feed: EventFeed<{ key: string }>) {
  const events = await everyEvent(feed);
  return { keys: events.map(({ body }) => body.key), ids: events.map(({ id }) => id) };
}

/**
 * What one writer of the exactly-once properties appends: a few keys out of six, so concurrent writers and
 * redeliveries overlap often.
 */
export const writerKeysArb = fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), {
  minLength: 1,
  maxLength: 4,
});
