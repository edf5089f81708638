import pLimit from 'p-limit';
import type { ChannelName } from '#contracts/websocket';
import type { Credential, CredentialsLookup } from '#domain/access/ports';
import { closeCodeFor, mayReceive } from '#domain/streaming/access';
import type { ChannelEvent } from '#domain/streaming/channel-events';
import { type Frame, frameOf, quotesBatchOf } from '#domain/streaming/messages';
import type {
  ClientConnections,
  ConnectionStore,
  Subscriber,
  Subscription,
  SubscriptionStore,
  UsageRow,
  UsageSink,
} from '#domain/streaming/ports';
import { subscriptionsReached, topicKey } from '#domain/streaming/topics';
import { closeConnection } from './websocket-session.ts';

export interface FanOutPorts {
  readonly subscriptions: SubscriptionStore;
  readonly connections: ConnectionStore;
  readonly clients: ClientConnections;
  readonly usage: UsageSink;
  readonly nowMs: () => number;
  /** Concurrent posts at most. */
  readonly concurrency: number;
  /**
   * The subscribers' keys and accounts as they are now, through a cache as short as the authorizer's: a key
   * revoked, an entitlement lapsed or a scope removed since the handshake stops the pushes within that
   * cache's time. Asked once per event for the key ids not asked yet in this invocation (one batch read
   * where the cache has expired), never once per subscriber.
   */
  readonly credentials: CredentialsLookup;
}

export interface FanOutOutcome {
  /** Indexes of the events that did not reach every subscriber; the source must deliver them again. */
  readonly failed: number[];
  /** Events pushed, one per connection reached: each has its usage row. */
  readonly sent: number;
  /** Frames posted: `sent`, less the quotes that shared a batched frame. */
  readonly frames: number;
  readonly gone: number;
  /** Connections closed (4401/4403) because their access was withdrawn since the handshake. */
  readonly closed: number;
  /** Messages not sent because the subscriber's key no longer has the channel's scope. */
  readonly withheld: number;
  /**
   * Usage rows the sink could not record: their events are in `failed`, so the source delivers them again
   * and their rows are written then (the report counts a row written twice once).
   */
  readonly usageUnrecorded: number;
  /** Why posts, lookups, clean-ups or usage rows failed (for the log); a failed clean-up fails no event. */
  readonly errors: string[];
}

/** Subscriber lookups of one invocation, by topic key: each topic is looked up once. */
export type SubscriberLookups = Map<string, Promise<Subscriber[]>>;

/** A topic's subscribers, looked up at its first ask and shared by the later ones. */
export function subscribersOnce(
  lookups: SubscriberLookups,
  subscriptions: SubscriptionStore,
  subscription: Subscription,
): Promise<Subscriber[]> {
  const key = topicKey(subscription);
  let found = lookups.get(key);
  if (!found) {
    found = subscriptions.subscribersOf(subscription);
    lookups.set(key, found);
  }
  return found;
}

/**
 * The symbols of `channel` that at least one connection follows (by symbol, or the channel's wildcard), looked
 * up into `lookups` so that a `fanOut` given them asks nothing again. A symbol whose lookup failed counts as
 * followed: its event then fails in `fanOut`, with the same error, and is delivered again.
 */
export async function symbolsFollowed(
  channel: ChannelName,
  symbols: readonly string[],
  subscriptions: SubscriptionStore,
  lookups: SubscriberLookups,
): Promise<string[]> {
  const followed = await Promise.all(
    symbols.map((symbol) =>
      Promise.all(
        subscriptionsReached(channel, [symbol]).map((subscription) =>
          subscribersOnce(lookups, subscriptions, subscription),
        ),
      ).then(
        (found) => found.some((subscribers) => subscribers.length > 0),
        () => true,
      ),
    ),
  );
  return symbols.filter((_, index) => followed[index]);
}

/** An error's message, for the log and the outcome's reasons. */
export const reason = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Pushes each event to its subscribers (docs/architecture.md#fan-out-dynamodb-streams-to-the-connections):
 * one message per connection even when several of its subscriptions match (a connection that takes quotes
 * batched gets all of its quotes here in one frame), posts in parallel up to `concurrency`, a connection
 * found gone cleaned up once, one usage row per event sent. Events about the
 * same symbols go out in their order: a later one waits for the earlier, and after a failure the later ones
 * are reported failed too, so a retry keeps the order. An event whose usage rows the sink could not record
 * is reported failed the same way: a message is never pushed without its row in the end.
 */
export async function fanOut(
  events: readonly ChannelEvent[],
  ports: FanOutPorts,
  /** Subscriber lookups already started (a quote push starts them while its commits are made). */
  lookups: SubscriberLookups = new Map(),
): Promise<FanOutOutcome> {
  const limit = pLimit(ports.concurrency);
  const subscribersOf = (subscription: Subscription) =>
    subscribersOnce(lookups, ports.subscriptions, subscription);
  const credentialsOf = new Map<string, Promise<Credential | undefined>>();
  /** Asks for the credentials of the key ids not asked for yet in this invocation, all in one call. */
  const lookUpCredentials = (subscribers: Iterable<Subscriber>) => {
    const keyIds = new Set<string>();
    for (const { keyId } of subscribers) if (!credentialsOf.has(keyId)) keyIds.add(keyId);
    if (keyIds.size === 0) return;
    const found = ports.credentials([...keyIds]);
    for (const keyId of keyIds) {
      const credential = found.then((credentials) => credentials.get(keyId));
      // A failed read fails the posts that await it; one no post awaits (its connection gone) is no crash.
      credential.catch(() => undefined);
      credentialsOf.set(keyId, credential);
    }
  };
  const goneConnections = new Map<string, Promise<void>>();
  let closed = 0;
  let withheld = 0;
  /** A connection found gone, or closed here, is cleaned up once; a failed clean-up is only logged. */
  const cleanUp = (subscriber: Subscriber) => {
    const cleanup = closeConnection(subscriber, ports).catch((error: unknown) => {
      errors.push(`clean-up of ${subscriber.connectionId}: ${reason(error)}`);
    });
    goneConnections.set(subscriber.connectionId, cleanup);
  };
  const usage: UsageRow[] = [];
  /** Each usage row's event (its index), by the row's message id: one per event. */
  const eventOfMessage = new Map<string, number>();
  const failed = new Set<number>();
  const errors: string[] = [];
  let sent = 0;
  let frames = 0;

  /** An event's connections (one each, however many of its subscriptions match), looked up once. */
  const recipientsOf = async (event: ChannelEvent): Promise<Subscriber[]> => {
    const reached = subscriptionsReached(event.channel, event.symbols);
    const recipients = new Map<string, Subscriber>();
    for (const subscribers of await Promise.all(reached.map(subscribersOf))) {
      for (const subscriber of subscribers) recipients.set(subscriber.connectionId, subscriber);
    }
    lookUpCredentials(recipients.values());
    return [...recipients.values()];
  };
  // Every event's lookups start together (a failed one fails its event in `deliver`).
  const recipients = events.map(recipientsOf);
  for (const found of recipients) found.catch(() => undefined);

  /**
   * Posts one frame to one connection, after its key and account are checked: `false` when it was not
   * posted (the connection gone or closed here, or its key without the channel's scope).
   */
  async function post(subscriber: Subscriber, channel: ChannelName, frame: Frame, eventCount: number) {
    if (goneConnections.has(subscriber.connectionId)) return false;
    const credential = await credentialsOf.get(subscriber.keyId);
    if (goneConnections.has(subscriber.connectionId)) return false;
    const closeCode = closeCodeFor(credential);
    if (closeCode !== undefined) {
      closed += 1;
      cleanUp(subscriber);
      await ports.clients.close(subscriber.connectionId, closeCode);
      return false;
    }
    if (credential && !mayReceive(credential, channel)) {
      withheld += eventCount;
      return false;
    }
    const delivery = await ports.clients.send(subscriber.connectionId, frame);
    if (delivery === 'gone') {
      // The rows expire (TTL) if the clean-up fails, and the next post cleans up again.
      cleanUp(subscriber);
      return false;
    }
    frames += 1;
    return true;
  }

  const messageIds: string[] = [];
  /** The usage row of one event pushed to one connection (one per event, batched or not). */
  function meter(subscriber: Subscriber, event: ChannelEvent, index: number) {
    sent += 1;
    messageIds[index] ??= `${new Date(event.recordedAtMs).toISOString()}#${event.eventId}`;
    const row: UsageRow = {
      accountId: subscriber.accountId,
      keyId: subscriber.keyId,
      channel: event.channel,
      ...('symbol' in event.message ? { symbol: event.message.symbol } : {}),
      time: new Date(ports.nowMs()).toISOString(),
      messageId: messageIds[index],
    };
    usage.push(row);
    eventOfMessage.set(row.messageId, index);
  }

  /** Whether a connection takes this event in a batch (its quotes subscription asked for it). */
  const takesInBatch = (subscriber: Subscriber, event: ChannelEvent) =>
    subscriber.batch === true && event.message.channel === 'quotes';

  /** An event to the connections that take it on its own: one frame, serialized once for all of them. */
  async function deliver(event: ChannelEvent, index: number): Promise<boolean> {
    const single = (await (recipients[index] as Promise<Subscriber[]>)).filter(
      (s) => !takesInBatch(s, event),
    );
    // Serialized only when some connection takes it on its own (not for batched subscribers alone).
    if (single.length === 0) return true;
    const frame = frameOf(event.message);
    const results = await Promise.allSettled(
      single.map((subscriber) =>
        limit(async () => {
          if (await post(subscriber, event.channel, frame, 1)) meter(subscriber, event, index);
        }),
      ),
    );
    for (const result of results) if (result.status === 'rejected') errors.push(reason(result.reason));
    return results.every((result) => result.status === 'fulfilled');
  }

  /**
   * The quotes of connections that take them batched (docs/websocket.md#batched-quotes): one frame per
   * connection with its quotes in the events' order, posted once every event's connections are known. A
   * failed post fails every event in it.
   */
  async function deliverBatches(): Promise<void> {
    const found = await Promise.allSettled(recipients);
    const byConnection = new Map<string, { subscriber: Subscriber; indexes: number[] }>();
    found.forEach((result, index) => {
      const event = events[index];
      if (result.status === 'rejected' || event === undefined) return;
      for (const subscriber of result.value) {
        if (!takesInBatch(subscriber, event)) continue;
        const batch = byConnection.get(subscriber.connectionId) ?? { subscriber, indexes: [] };
        batch.indexes.push(index);
        byConnection.set(subscriber.connectionId, batch);
      }
    });
    await Promise.all(
      [...byConnection.values()].map(({ subscriber, indexes }) =>
        limit(async () => {
          const frame = frameOf(
            quotesBatchOf(indexes.map((index) => (events[index] as ChannelEvent).message)),
          );
          if (!(await post(subscriber, 'quotes', frame, indexes.length))) return;
          for (const index of indexes) meter(subscriber, events[index] as ChannelEvent, index);
        }).catch((error: unknown) => {
          errors.push(reason(error));
          for (const index of indexes) fail(index);
        }),
      ),
    );
  }

  const groups = new Map<string, number[]>();
  /** The events of an event's group from it on: what fails with it, so a retry keeps the order. */
  const fromOn = new Map<number, number[]>();
  events.forEach((event, index) => {
    const key = `${event.channel}#${event.symbols.join(',')}`;
    const group = groups.get(key) ?? [];
    group.push(index);
    groups.set(key, group);
  });
  for (const indexes of groups.values()) {
    for (const [position, index] of indexes.entries()) fromOn.set(index, indexes.slice(position));
  }
  const fail = (index: number) => {
    for (const later of fromOn.get(index) ?? [index]) failed.add(later);
  };
  const batched = deliverBatches();
  await Promise.all(
    [...groups.values()].map(async (indexes) => {
      for (const index of indexes) {
        const event = events[index];
        const delivered =
          event !== undefined &&
          (await deliver(event, index).catch((error: unknown) => {
            errors.push(reason(error));
            return false;
          }));
        if (delivered) continue;
        fail(index);
        return;
      }
    }),
  );

  await batched;
  await Promise.all(goneConnections.values());
  let usageUnrecorded = 0;
  if (usage.length > 0) {
    const unrecorded = await ports.usage
      .record(usage)
      .catch((error: unknown) => [{ rows: usage, reason: reason(error) }]);
    for (const { rows, reason: why } of unrecorded) {
      usageUnrecorded += rows.length;
      errors.push(`${rows.length} usage rows not recorded: ${why}`);
      for (const row of rows) {
        const index = eventOfMessage.get(row.messageId);
        // A row the sink made up would be a bug: every event with rows goes again rather than lose one.
        if (index === undefined) for (const any of eventOfMessage.values()) fail(any);
        else fail(index);
      }
    }
  }
  return {
    failed: [...failed].sort((a, b) => a - b),
    sent,
    frames,
    gone: goneConnections.size - closed,
    closed,
    withheld,
    usageUnrecorded,
    errors,
  };
}
