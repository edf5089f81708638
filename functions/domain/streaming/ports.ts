import type { ChannelName, CloseCode } from '#contracts/websocket';
import type { Principal } from '#domain/access/authorization';
import type { Frame } from './messages.ts';

/**
 * The account's one live connection, as its row keeps it
 * (docs/architecture.md#websocket-api-gateway-websocket-api-with-mapped-close-codes).
 */
export interface ConnectionRecord extends Pick<Principal, 'accountId' | 'keyId' | 'scopes'> {
  readonly connectionId: string;
  readonly connectedAtMs: number;
}

export interface ConnectionStore {
  /**
   * Makes `connection` the account's one connection and returns the row it replaced, when that named
   * another connection. Writes are serialized per account: of two racing claims, the later one replaces
   * the earlier, so the row ends naming exactly one connection.
   */
  claim(connection: ConnectionRecord): Promise<ConnectionRecord | undefined>;
  get(accountId: string): Promise<ConnectionRecord | undefined>;
  /** Deletes the account's row only while it still names `connectionId`; whether it did. */
  release(accountId: string, connectionId: string): Promise<boolean>;
  /** Every connection row, page by page (the heartbeat). */
  list(): AsyncIterable<ConnectionRecord[]>;
}

/** A connection's interest in one channel and symbol; `symbol` absent: every symbol of an alert channel. */
export interface Subscription {
  readonly channel: ChannelName;
  readonly symbol?: string;
  /** `quotes` only: the connection takes this symbol's quotes batched (docs/websocket.md#batched-quotes). */
  readonly batch?: true;
}

/** Who a topic's message goes to. */
export interface Subscriber {
  readonly connectionId: string;
  readonly accountId: string;
  readonly keyId: string;
  /** Its subscription to the topic asked for batched quotes. */
  readonly batch?: true;
}

export interface SubscriptionStore {
  add(subscriber: Subscriber, subscriptions: readonly Subscription[]): Promise<void>;
  remove(connectionId: string, subscriptions: readonly Subscription[]): Promise<void>;
  /** Every subscription of a connection. */
  listOf(connectionId: string): Promise<Subscription[]>;
  /** The subscribers of each subscription asked for, found by key (never a Scan). */
  subscribersOf(subscription: Subscription): Promise<Subscriber[]>;
}

/**
 * Counts a connection's client messages per window across every function instance
 * (docs/websocket.md#limits).
 */
export interface MessageRateLimiter {
  /** Counts one message of the connection at `nowMs`; returns the window's count, this one included. */
  count(connectionId: string, nowMs: number): Promise<number>;
}

export type Delivery = 'sent' | 'gone';

/** The `@connections` management API: how functions talk to connected clients. */
export interface ClientConnections {
  /** Posts one message, serialized (`frameOf`); `gone` when the connection no longer exists (GoneException). */
  send(connectionId: string, frame: Frame): Promise<Delivery>;
  /**
   * Ends a connection with a close code. API Gateway cannot send one
   * (docs/architecture.md#websocket-api-gateway-websocket-api-with-mapped-close-codes): the client first gets
   * a final control message `{"op":"close","code","reason"}`, then the connection is deleted.
   */
  close(connectionId: string, code: CloseCode): Promise<void>;
}

/** One `ws_message` usage row per pushed event (docs/websocket.md#metering). */
export interface UsageRow {
  readonly accountId: string;
  readonly keyId: string;
  readonly channel: ChannelName;
  readonly symbol?: string;
  /** When the message was pushed, ISO 8601. */
  readonly time: string;
  /**
   * Unique per (account, event): a redelivered event writes its row again with the same id, and the usage
   * report counts each (accountId, messageId) once.
   */
  readonly messageId: string;
}

/** What a usage sink could not record: the rows, and why (for the log). */
export interface UnrecordedUsage {
  readonly rows: readonly UsageRow[];
  readonly reason: string;
}

/**
 * Where the usage rows go (docs/storage.md#usage-rows): at least once, never dropped silently. `record`
 * resolves to the rows it could not record after its own retries (empty when all were), so the caller can
 * have their events delivered again; it does not throw for them.
 */
export interface UsageSink {
  record(rows: readonly UsageRow[]): Promise<UnrecordedUsage[]>;
}
