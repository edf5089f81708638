import pLimit from 'p-limit';
import type { Credential, CredentialLookup } from '#domain/access/ports';
import { closeCodeFor, mayReceive } from '#domain/streaming/access';
import type { ChannelEvent } from '#domain/streaming/channel-events';
import type {
  ClientConnections,
  ConnectionStore,
  Subscriber,
  Subscription,
  SubscriptionStore,
  UsageLog,
  UsageRow,
} from '#domain/streaming/ports';
import { subscriptionsReached, topicKey } from '#domain/streaming/topics';
import { closeConnection } from './websocket-session.ts';

export interface FanOutPorts {
  readonly subscriptions: SubscriptionStore;
  readonly connections: ConnectionStore;
  readonly clients: ClientConnections;
  readonly usage: UsageLog;
  readonly nowMs: () => number;
  /** Concurrent posts at most. */
  readonly concurrency: number;
  /**
   * A subscriber's key and account as they are now, through the authorizer's short cache: a key revoked, an
   * entitlement lapsed or a scope removed since the handshake stops the pushes within that cache's time.
   */
  readonly credentials: CredentialLookup;
}

export interface FanOutOutcome {
  /** Indexes of the events that did not reach every subscriber; the source must deliver them again. */
  readonly failed: number[];
  readonly sent: number;
  readonly gone: number;
  /** Connections closed (4401/4403) because their access was withdrawn since the handshake. */
  readonly closed: number;
  /** Messages not sent because the subscriber's key no longer has the channel's scope. */
  readonly withheld: number;
  /** Why posts, lookups or clean-ups failed (for the log); a failed clean-up fails no event. */
  readonly errors: string[];
}

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Pushes each event to its subscribers (docs/architecture.md#fan-out-dynamodb-streams-to-the-connections):
 * one message per connection even when several of its subscriptions match, posts in parallel up to
 * `concurrency`, a connection found gone cleaned up once, one usage row per message sent. Events about the
 * same symbols go out in their order: a later one waits for the earlier, and after a failure the later ones
 * are reported failed too, so a retry keeps the order.
 */
export async function fanOut(events: readonly ChannelEvent[], ports: FanOutPorts): Promise<FanOutOutcome> {
  const limit = pLimit(ports.concurrency);
  const lookups = new Map<string, Promise<Subscriber[]>>();
  const subscribersOf = (subscription: Subscription) => {
    const key = topicKey(subscription);
    let found = lookups.get(key);
    if (!found) {
      found = ports.subscriptions.subscribersOf(subscription);
      lookups.set(key, found);
    }
    return found;
  };
  const credentialsOf = new Map<string, Promise<Credential | undefined>>();
  const credentialOf = (keyId: string) => {
    let found = credentialsOf.get(keyId);
    if (!found) {
      found = ports.credentials(keyId);
      credentialsOf.set(keyId, found);
    }
    return found;
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
  const failed: number[] = [];
  const errors: string[] = [];
  let sent = 0;

  async function deliver(event: ChannelEvent): Promise<boolean> {
    const reached = subscriptionsReached(event.channel, event.symbols);
    const recipients = new Map<string, Subscriber>();
    for (const subscribers of await Promise.all(reached.map(subscribersOf))) {
      for (const subscriber of subscribers) recipients.set(subscriber.connectionId, subscriber);
    }
    const results = await Promise.allSettled(
      [...recipients.values()].map((subscriber) =>
        limit(async () => {
          if (goneConnections.has(subscriber.connectionId)) return;
          const credential = await credentialOf(subscriber.keyId);
          if (goneConnections.has(subscriber.connectionId)) return;
          const closeCode = closeCodeFor(credential);
          if (closeCode !== undefined) {
            closed += 1;
            cleanUp(subscriber);
            await ports.clients.close(subscriber.connectionId, closeCode);
            return;
          }
          if (credential && !mayReceive(credential, event.channel)) {
            withheld += 1;
            return;
          }
          const delivery = await ports.clients.send(subscriber.connectionId, event.message);
          if (delivery === 'gone') {
            // The rows expire (TTL) if the clean-up fails, and the next post cleans up again.
            cleanUp(subscriber);
            return;
          }
          sent += 1;
          usage.push({
            accountId: subscriber.accountId,
            keyId: subscriber.keyId,
            channel: event.channel,
            ...('symbol' in event.message ? { symbol: event.message.symbol } : {}),
            time: new Date(ports.nowMs()).toISOString(),
            messageId: `${new Date(event.recordedAtMs).toISOString()}#${event.eventId}`,
          });
        }),
      ),
    );
    for (const result of results) if (result.status === 'rejected') errors.push(reason(result.reason));
    return results.every((result) => result.status === 'fulfilled');
  }

  const groups = new Map<string, number[]>();
  events.forEach((event, index) => {
    const key = `${event.channel}#${event.symbols.join(',')}`;
    const group = groups.get(key);
    if (group) group.push(index);
    else groups.set(key, [index]);
  });
  await Promise.all(
    [...groups.values()].map(async (indexes) => {
      for (const [position, index] of indexes.entries()) {
        const event = events[index];
        const delivered =
          event !== undefined &&
          (await deliver(event).catch((error: unknown) => {
            errors.push(reason(error));
            return false;
          }));
        if (delivered) continue;
        failed.push(...indexes.slice(position));
        return;
      }
    }),
  );

  await Promise.all(goneConnections.values());
  await ports.usage.record(usage);
  return {
    failed: failed.sort((a, b) => a - b),
    sent,
    gone: goneConnections.size - closed,
    closed,
    withheld,
    errors,
  };
}
