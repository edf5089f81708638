import { SCOPES, type Scope } from '#contracts/scopes';
import type { CloseCode } from '#contracts/websocket';
import { CLIENT_MESSAGE_RATE } from '#contracts/websocket';
import type { CredentialLookup, CredentialsLookup } from '#domain/access/ports';
import { MessageCounts } from '#domain/streaming/message-allowance';
import type { Frame } from '#domain/streaming/messages';
import type {
  ClientConnections,
  ConnectionRecord,
  ConnectionStore,
  Delivery,
  MessageRateLimiter,
  Subscriber,
  Subscription,
  SubscriptionStore,
  UnrecordedUsage,
  UsageRow,
  UsageSink,
} from '#domain/streaming/ports';
import { topicKey } from '#domain/streaming/topics';
import type { WebSocketEvent } from '#runtime/websocket';

/** In-memory WebSocket ports for domain and handler tests: the contracts of functions/domain/streaming/ports.ts. */

/**
 * One row per account. A claim replaces the row in one step (claims run one after the other, in the order
 * they were made) and returns the replaced row only when it named another connection.
 */
export class InMemoryConnectionStore implements ConnectionStore {
  readonly rows = new Map<string, ConnectionRecord>();
  private claims: Promise<unknown> = Promise.resolve();

  constructor(private readonly pageSize = 100) {}

  claim(connection: ConnectionRecord): Promise<ConnectionRecord | undefined> {
    const claimed = this.claims.then(() => {
      const previous = this.rows.get(connection.accountId);
      this.rows.set(connection.accountId, connection);
      return previous && previous.connectionId !== connection.connectionId ? previous : undefined;
    });
    this.claims = claimed;
    return claimed;
  }

  async get(accountId: string) {
    return this.rows.get(accountId);
  }

  async release(accountId: string, connectionId: string) {
    if (this.rows.get(accountId)?.connectionId !== connectionId) return false;
    this.rows.delete(accountId);
    return true;
  }

  async *list() {
    const all = [...this.rows.values()];
    for (let start = 0; start < all.length; start += this.pageSize) {
      yield all.slice(start, start + this.pageSize);
    }
  }
}

/** Rows keyed by topic (`<channel>#<symbol>` or `<channel>#*`), then connection. */
export class InMemorySubscriptionStore implements SubscriptionStore {
  readonly topics = new Map<string, Map<string, { subscription: Subscription; subscriber: Subscriber }>>();

  async add(subscriber: Subscriber, subscriptions: readonly Subscription[]) {
    for (const subscription of subscriptions) {
      const key = topicKey(subscription);
      const rows = this.topics.get(key) ?? new Map();
      rows.set(subscriber.connectionId, {
        subscription: subscription.symbol === undefined ? { channel: subscription.channel } : subscription,
        subscriber: {
          connectionId: subscriber.connectionId,
          accountId: subscriber.accountId,
          keyId: subscriber.keyId,
          ...(subscription.batch ? { batch: true as const } : {}),
        },
      });
      this.topics.set(key, rows);
    }
  }

  async remove(connectionId: string, subscriptions: readonly Subscription[]) {
    for (const subscription of subscriptions) {
      const key = topicKey(subscription);
      const rows = this.topics.get(key);
      rows?.delete(connectionId);
      if (rows?.size === 0) this.topics.delete(key);
    }
  }

  async listOf(connectionId: string) {
    return [...this.topics.values()].flatMap((rows) => {
      const row = rows.get(connectionId);
      return row ? [row.subscription] : [];
    });
  }

  async subscribersOf(subscription: Subscription) {
    return [...(this.topics.get(topicKey(subscription))?.values() ?? [])].map(({ subscriber }) => subscriber);
  }

  /** Every topic key of a connection, sorted: `['alerts.in_force#*', 'quotes#AAPL']`. */
  topicsOf(connectionId: string): string[] {
    return [...this.topics.entries()]
      .filter(([, rows]) => rows.has(connectionId))
      .map(([key]) => key)
      .sort();
  }
}

/**
 * The `@connections` API: records every message and close per connection. Connections in `gone` answer
 * `gone` (a closed connection is gone afterwards); a send to one in `failing` throws. `beforeSend` runs
 * before each delivery (latency, ordering).
 */
export class FakeClientConnections implements ClientConnections {
  readonly messages = new Map<string, unknown[]>();
  /** The frames as sent, by connection (the messages above are these, parsed). */
  readonly frames = new Map<string, Frame[]>();
  readonly closes: { connectionId: string; code: CloseCode }[] = [];
  readonly gone: Set<string>;
  readonly failing: Set<string>;
  /** Sends under way now, and the most ever at once. */
  inFlight = 0;
  maxInFlight = 0;
  private readonly beforeSend?: (connectionId: string, message: unknown) => Promise<void>;

  constructor(
    options: {
      gone?: Iterable<string>;
      failing?: Iterable<string>;
      beforeSend?: (connectionId: string, message: unknown) => Promise<void>;
    } = {},
  ) {
    this.gone = new Set(options.gone);
    this.failing = new Set(options.failing);
    this.beforeSend = options.beforeSend;
  }

  async send(connectionId: string, frame: Frame): Promise<Delivery> {
    const message: unknown = JSON.parse(frame.json);
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      await this.beforeSend?.(connectionId, message);
      if (this.gone.has(connectionId)) return 'gone';
      if (this.failing.has(connectionId)) throw new Error(`posting to ${connectionId} failed`);
      this.messages.set(connectionId, [...this.sentTo(connectionId), message]);
      this.frames.set(connectionId, [...(this.frames.get(connectionId) ?? []), frame]);
      return 'sent';
    } finally {
      this.inFlight -= 1;
    }
  }

  async close(connectionId: string, code: CloseCode) {
    this.closes.push({ connectionId, code });
    this.gone.add(connectionId);
  }

  sentTo(connectionId: string): unknown[] {
    return this.messages.get(connectionId) ?? [];
  }
}

/** The rows recorded; those `refuse` picks are handed back unrecorded, as a sink out of retries does. */
export class InMemoryUsageSink implements UsageSink {
  readonly rows: UsageRow[] = [];
  refuse: (row: UsageRow) => boolean = () => false;

  async record(rows: readonly UsageRow[]): Promise<UnrecordedUsage[]> {
    const refused = rows.filter((row) => this.refuse(row));
    this.rows.push(...rows.filter((row) => !this.refuse(row)));
    return refused.length > 0 ? [{ rows: refused, reason: 'ServiceUnavailableException: slow down' }] : [];
  }
}

export function connectionRecord(overrides: Partial<ConnectionRecord> = {}): ConnectionRecord {
  return {
    accountId: 'acme',
    keyId: 'key-1',
    scopes: ['ws:connect', 'prices:read', 'states:read', 'alerts:read'],
    connectionId: 'conn-1',
    connectedAtMs: Date.parse('2024-11-26T15:00:00Z'),
    ...overrides,
  };
}

/** Counts each connection's messages per window, as the DynamoDB counter does (CLIENT_MESSAGE_RATE). */
export class InMemoryMessageRate implements MessageRateLimiter {
  private readonly counts = new Map<string, number>();
  /** Counter writes so far (one per message counted, as DynamoDB's atomic update). */
  writes = 0;

  async count(connectionId: string, nowMs: number) {
    this.writes += 1;
    const key = `${connectionId}#${Math.floor(nowMs / (CLIENT_MESSAGE_RATE.windowSeconds * 1000))}`;
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    return count;
  }
}

/** The session's ports, in memory (the clock: `nowMs`, fixed unless given). */
export function inMemorySessionPorts(
  options: ConstructorParameters<typeof FakeClientConnections>[0] = {},
  nowMs: () => number = () => Date.parse('2024-11-26T15:00:00Z'),
) {
  return {
    connections: new InMemoryConnectionStore(),
    subscriptions: new InMemorySubscriptionStore(),
    clients: new FakeClientConnections(options),
    messageRate: new InMemoryMessageRate(),
    messageCounts: new MessageCounts(),
    nowMs,
  };
}

const EVENT_TYPES = { $connect: 'CONNECT', $disconnect: 'DISCONNECT', $default: 'MESSAGE' } as const;

/** A WebSocket route's event as API Gateway delivers it, with the `$connect` authorizer's context. */
export function webSocketEvent(options: {
  routeKey: keyof typeof EVENT_TYPES;
  connectionId?: string;
  connectedAt?: number;
  body?: string;
  authorizer?: Record<string, unknown>;
}): WebSocketEvent {
  const connectedAt = options.connectedAt ?? Date.parse('2024-11-26T15:00:00Z');
  return {
    requestContext: {
      routeKey: options.routeKey,
      messageId: 'msg-1',
      eventType: EVENT_TYPES[options.routeKey],
      extendedRequestId: 'ext-1',
      requestTime: '26/Nov/2024:15:00:00 +0000',
      messageDirection: 'IN',
      stage: 'live',
      connectedAt,
      requestTimeEpoch: connectedAt,
      requestId: 'req-1',
      domainName: 'example.execute-api.us-east-1.amazonaws.com',
      connectionId: options.connectionId ?? 'conn-1',
      apiId: 'example',
      authorizer: options.authorizer ?? {
        accountId: 'acme',
        keyId: 'key-1',
        scopes: 'ws:connect,prices:read',
      },
    },
    ...(options.body === undefined ? {} : { body: options.body }),
    isBase64Encoded: false,
  };
}

export const subscriber = (connectionId: string, accountId = `acct-${connectionId}`): Subscriber => ({
  connectionId,
  accountId,
  keyId: `key-${connectionId}`,
});

/** Every key id is a live key with every scope, of an active account: access is never withdrawn. */
export const everyKeyAllowed: CredentialLookup = async (keyId) => ({
  key: {
    keyId,
    accountId: `account-of-${keyId}`,
    label: 'test',
    scopes: [...SCOPES],
    secretHash: '0'.repeat(64),
    usageIdentifierKey: `usage-${keyId}`,
    createdAt: '2024-11-01T00:00:00Z',
  },
  account: { accountId: `account-of-${keyId}`, entitlement: 'active', updatedAt: '2024-11-01T00:00:00Z' },
});

/** A lookup that finds every key live, of an active account, with exactly `scopes`. */
export function keysWithScopes(scopes: readonly Scope[]): CredentialLookup {
  return async (keyId) => {
    const credential = await everyKeyAllowed(keyId);
    return credential && { ...credential, key: { ...credential.key, scopes: [...scopes] } };
  };
}

/** A batch lookup that answers each key id as `lookup` does (a key id it finds nothing for is absent). */
export function credentialsFrom(lookup: CredentialLookup): CredentialsLookup {
  return async (keyIds) => {
    const found = await Promise.all(keyIds.map(async (keyId) => [keyId, await lookup(keyId)] as const));
    return new Map(
      found.flatMap(([keyId, credential]) => (credential ? [[keyId, credential] as const] : [])),
    );
  };
}

/**
 * Fan-out ports in memory, with each subscriber's connection row and subscriptions in place; `credentials`
 * answers key by key (credentialsFrom), or `credentialsBatch` as given.
 */
export async function fanOutPorts(
  subscribed: [Subscriber, Subscription[]][],
  options: {
    clients?: FakeClientConnections;
    nowMs: number;
    concurrency?: number;
    credentials?: CredentialLookup;
    credentialsBatch?: CredentialsLookup;
  },
) {
  const ports = {
    subscriptions: new InMemorySubscriptionStore(),
    connections: new InMemoryConnectionStore(),
    clients: options.clients ?? new FakeClientConnections(),
    usage: new InMemoryUsageSink(),
    nowMs: () => options.nowMs,
    concurrency: options.concurrency ?? 8,
    credentials: options.credentialsBatch ?? credentialsFrom(options.credentials ?? everyKeyAllowed),
  };
  for (const [who, subscriptions] of subscribed) {
    await ports.connections.claim(connectionRecord({ ...who, scopes: [] }));
    await ports.subscriptions.add(who, subscriptions);
  }
  return ports;
}
