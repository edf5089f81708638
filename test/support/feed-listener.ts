import { expect, vi } from 'vitest';
import type { FeedError, FeedEvent, FeedListener } from '#domain/feed/ports';

/** A FeedListener that records what it hears. */
export function recordingListener() {
  const events: FeedEvent[] = [];
  const dropped: string[] = [];
  const closes: (FeedError | undefined)[] = [];
  const listener: FeedListener = {
    onEvents: (list) => events.push(...list),
    onDropped: (reason, count) => dropped.push(...new Array<string>(count).fill(reason)),
    onClose: (error) => closes.push(error),
  };
  return {
    listener,
    events,
    dropped,
    closes,
    /** Waits until `count` events were heard. */
    until: (count: number) => vi.waitFor(() => expect(events.length).toBeGreaterThanOrEqual(count)),
  };
}
