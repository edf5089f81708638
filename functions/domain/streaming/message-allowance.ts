import { CLIENT_MESSAGE_RATE } from '#contracts/websocket';

/**
 * What becomes of a client message, from the connection's count of messages in the current window, this one
 * included (docs/websocket.md#limits): acted on, refused with an answer, refused silently, or the connection
 * closed with 4429.
 */
export type MessageVerdict = 'admit' | 'refuse' | 'ignore' | 'close';

/**
 * The close comes once, at the `closeAt`-th message: the messages still in flight after it (the connection
 * is going) are ignored, not each answered with another close.
 */
export function verdictFor(count: number): MessageVerdict {
  const { messages, answeredRefusals, closeAt } = CLIENT_MESSAGE_RATE;
  if (count === closeAt) return 'close';
  if (count <= messages) return 'admit';
  return count <= messages + answeredRefusals ? 'refuse' : 'ignore';
}

/** The fixed window (CLIENT_MESSAGE_RATE.windowSeconds) an instant falls in. */
export function messageWindow(nowMs: number): number {
  return Math.floor(nowMs / (CLIENT_MESSAGE_RATE.windowSeconds * 1000));
}

/** How many connections one instance remembers: far more than it serves at once; the oldest go first. */
const DEFAULT_CAPACITY = 10_000;

/**
 * Each connection's client messages in the current window, counted in the memory of one function instance:
 * the first, free check (no read, no write) before the shared count in storage. An instance sees a part of a
 * connection's messages, so its count is at most the connection's: what it refuses is over the allowance
 * for sure. At most `capacity` connections are remembered.
 */
export class MessageCounts {
  private readonly counts = new Map<string, { window: number; count: number }>();

  constructor(private readonly capacity: number = DEFAULT_CAPACITY) {}

  /** Counts one message of the connection at `nowMs`; returns the window's count, this one included. */
  count(connectionId: string, nowMs: number): number {
    const window = messageWindow(nowMs);
    const current = this.counts.get(connectionId);
    const count = current?.window === window ? current.count + 1 : 1;
    // Deleted first: the map keeps the most recently active connections last, the first to forget first.
    this.counts.delete(connectionId);
    this.counts.set(connectionId, { window, count });
    if (this.counts.size > this.capacity) {
      const oldest = this.counts.keys().next().value;
      if (oldest !== undefined) this.counts.delete(oldest);
    }
    return count;
  }

  get size(): number {
    return this.counts.size;
  }
}
