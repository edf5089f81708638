import { sleep } from './backoff.ts';
import type { RestResponse } from './rest.ts';

/** What a poller needs: one page of the feed after `sinceId`. */
export type FeedPageReader<Item> = (
  sinceId: number | undefined,
  signal?: AbortSignal,
) => Promise<RestResponse<{ items: Item[] }>>;

export interface PollOptions {
  /** Resume after this id: only later events are yielded. Absent: from the start of the query's window. */
  readonly sinceId?: number;
  /** The wait between polls once the feed is read to its end (default 5,000 ms). */
  readonly intervalMs?: number;
  /** Ends the iteration (the loop just ends; no error). */
  readonly signal?: AbortSignal;
}

export const DEFAULT_POLL_INTERVAL_MS = 5_000;

/**
 * Every event of a feed once, in id order, forever (docs/partner-guide.md#get-alertsin-force): each poll asks
 * for the events after the highest id seen, and moves on to `X-Next-Since-Id` when the service examined
 * further than it returned (docs/partner-guide.md#polling-past-a-narrow-filter). It polls again at once while
 * a poll moves forward, and waits `intervalMs` once it does not. Errors the transport does not retry end the
 * iteration by being thrown.
 */
export async function* pollFeed<Item extends { id: number }>(
  readPage: FeedPageReader<Item>,
  options: PollOptions = {},
): AsyncGenerator<Item, void, undefined> {
  let sinceId = options.sinceId;
  const { signal } = options;
  while (!signal?.aborted) {
    let page: RestResponse<{ items: Item[] }>;
    try {
      page = await readPage(sinceId, signal);
    } catch (error) {
      if (signal?.aborted) return;
      throw error;
    }
    const before = sinceId;
    for (const item of page.body.items) {
      if (sinceId !== undefined && item.id <= sinceId) continue;
      sinceId = item.id;
      yield item;
      if (signal?.aborted) return;
    }
    if (page.nextSinceId !== undefined && (sinceId === undefined || page.nextSinceId > sinceId)) {
      sinceId = page.nextSinceId;
    }
    if (sinceId !== before) continue;
    try {
      await sleep(options.intervalMs ?? DEFAULT_POLL_INTERVAL_MS, signal);
    } catch {
      return;
    }
  }
}
