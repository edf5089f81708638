import type { Scope } from './scopes.ts';
import type { TableBinding, TableId } from './tables.ts';

/**
 * The WebSocket API's versioned path (docs/partner-guide.md#versioning); the local stack serves it on the
 * REST port.
 */
export const WS_BASE_PATH = '/ws/market/v1';

/** The WebSocket API's stage on AWS, like the REST API's (ADR 0001). */
export const WS_STAGE = 'live';

/**
 * The stream's WebSocket subprotocol (docs/websocket.md#connecting-from-a-browser). A browser cannot set
 * headers on a handshake, so it offers `['market-data.v1', 'key.<api key>']`; the authorizer reads the key
 * from the `key.` entry and `$connect` selects `market-data.v1`, never the key entry.
 */
export const WS_SUBPROTOCOL = 'market-data.v1';
/** The prefix of the subprotocol entry that carries the API key in a browser's handshake. */
export const KEY_SUBPROTOCOL_PREFIX = 'key.';

export const CHANNEL_NAMES = ['quotes', 'states', 'alerts.in_force', 'alerts.simultaneous_breaks'] as const;

export type ChannelName = (typeof CHANNEL_NAMES)[number];

export interface ChannelDefinition {
  /**
   * The scope a key needs to subscribe (docs/websocket.md#channels-and-pushed-messages), besides
   * `ws:connect`.
   */
  readonly scope: Scope;
  /**
   * The table whose commits feed the channel: a ledger commit that moves the latest price is posted by the
   * ingest itself (docs/adr/0024-quotes-posted-by-the-ingest.md); the other tables' changes come through their
   * streams (docs/architecture.md#fan-out-dynamodb-streams-to-the-connections).
   */
  readonly source: TableId;
  /**
   * `required`: a topic must name symbols; `optional`: without symbols it means every symbol
   * (docs/websocket.md#channels-and-pushed-messages).
   */
  readonly symbols: 'required' | 'optional';
}

/**
 * The four channels (docs/websocket.md#channels-and-pushed-messages), defined once: scopes, sources and the
 * symbols rule.
 */
export const CHANNELS = {
  quotes: { scope: 'prices:read', source: 'ledgers', symbols: 'required' },
  states: { scope: 'states:read', source: 'states', symbols: 'required' },
  'alerts.in_force': { scope: 'alerts:read', source: 'alerts', symbols: 'optional' },
  'alerts.simultaneous_breaks': { scope: 'alerts:read', source: 'breaks', symbols: 'optional' },
} as const satisfies Record<ChannelName, ChannelDefinition>;

/** WebSocket close codes (docs/websocket.md#close-codes). */
export const CLOSE_CODES = {
  /** No valid API key in the handshake. */
  noValidKey: 4401,
  /** No active subscription, or the key lacks `ws:connect`. */
  forbidden: 4403,
  /** Replaced by a newer connection of the same account. */
  replaced: 4409,
  /** Kept sending client messages far over its allowance (CLIENT_MESSAGE_RATE.closeAt in one window). */
  messageRateExceeded: 4429,
} as const;

export type CloseCode = (typeof CLOSE_CODES)[keyof typeof CLOSE_CODES];

/** The close reasons sent with each code: the meaning docs/websocket.md#close-codes gives it. */
export const CLOSE_REASONS: Record<CloseCode, string> = {
  4401: 'no valid API key in handshake',
  4403: 'no active subscription, or key lacks ws:connect',
  4409: 'connection replaced by a newer connection of the same account',
  4429: 'client message rate exceeded',
};

export interface WsRoute {
  /** Stable identifier: construct ids and function names. */
  readonly id: string;
  readonly routeKey: '$connect' | '$disconnect' | '$default';
  /** The Lambda entry, relative to the project root. */
  readonly handler: string;
  readonly tables: readonly TableBinding[];
  /** Whether the handler posts to connections (the `@connections` management API). */
  readonly managesConnections: boolean;
}

/** The WebSocket API's routes; `$connect` is the one API Gateway authorizes (with the REST authorizer). */
export const WS_ROUTES = [
  {
    id: 'connect',
    routeKey: '$connect',
    handler: 'functions/handlers/ws/connect.ts',
    // Claims the account's row; it writes no subscription (least privilege).
    tables: [{ table: 'connections', access: 'write' }],
    managesConnections: true,
  },
  {
    id: 'disconnect',
    routeKey: '$disconnect',
    handler: 'functions/handlers/ws/disconnect.ts',
    tables: [
      { table: 'connections', access: 'write' },
      { table: 'subscriptions', access: 'write' },
    ],
    managesConnections: false,
  },
  {
    id: 'message',
    routeKey: '$default',
    handler: 'functions/handlers/ws/message.ts',
    tables: [
      // Reads the account's row (is this still its connection?); never writes it.
      { table: 'connections', access: 'get' },
      // Subscriptions, and the connection's message counter (docs/websocket.md#limits).
      { table: 'subscriptions', access: 'write' },
      { table: 'instruments', access: 'read' },
      // The key's scopes as they are now, for `subscribe`.
      { table: 'apiKeys', access: 'get' },
      { table: 'accounts', access: 'get' },
    ],
    managesConnections: true,
  },
] as const satisfies readonly WsRoute[];

/**
 * One connection's client messages (docs/websocket.md#limits): at most `messages` per window of
 * `windowSeconds`; the next `answeredRefusals` are answered `rate_limit_exceeded` and not acted on, later ones
 * get no answer, and the `closeAt`-th message of a window closes the connection with 4429. Far above what
 * subscribe, unsubscribe and ping need (a partner subscribes once per connection, pings every few minutes).
 */
export const CLIENT_MESSAGE_RATE = {
  messages: 50,
  windowSeconds: 10,
  answeredRefusals: 5,
  closeAt: 100,
} as const;

/** Concurrent PostToConnection calls per invocation (the fan-out's pushes, the heartbeat's beats). */
export const POST_CONCURRENCY = 32;

/**
 * The fan-out Lambda (docs/architecture.md#fan-out-dynamodb-streams-to-the-connections): the source tables'
 * streams, posted to subscribed connections. `batch` is the event source mappings' setting, the same on AWS
 * and in the local stack. Quotes are not among them: the ingest posts them (QUOTE_PUSH).
 */
export const FAN_OUT = {
  handler: 'functions/handlers/stream/fan-out.ts',
  sources: ['states', 'alerts', 'breaks'],
  tables: [
    { table: 'subscriptions', access: 'write' },
    { table: 'connections', access: 'write' },
    // Not the usage table: the usage rows go to the Firehose stream (functions/contracts/usage.ts).
    { table: 'instruments', access: 'read' },
    // The latest price a state push carries is the ledger's.
    { table: 'ledgers', access: 'read' },
    // Each subscriber's key and account, checked before a push (access withdrawn stops it).
    { table: 'apiKeys', access: 'get' },
    { table: 'accounts', access: 'get' },
  ],
  batch: {
    size: 100,
    /** No batching window: a quote is worth most the moment it is written. */
    windowSeconds: 0,
    retryAttempts: 3,
    /** A push older than this is dropped to the dead-letter queue; partners catch up over REST. */
    maxRecordAgeSeconds: 300,
    /** Concurrent batches per stream shard; DynamoDB Streams keep each key's records in order. */
    parallelizationFactor: 4,
  },
} as const satisfies {
  handler: string;
  sources: readonly TableId[];
  tables: readonly TableBinding[];
  batch: Record<string, number>;
};

/**
 * What the ingest Lambda needs besides its own tables to post the quotes of its commits
 * (docs/adr/0024-quotes-posted-by-the-ingest.md): the subscriptions and connections, as the fan-out reads and
 * cleans them up, and each subscriber's key and account. Bound only where the stack has the WebSocket API.
 */
export const QUOTE_PUSH = {
  tables: [
    { table: 'subscriptions', access: 'write' },
    { table: 'connections', access: 'write' },
    { table: 'apiKeys', access: 'get' },
    { table: 'accounts', access: 'get' },
  ],
} as const satisfies { tables: readonly TableBinding[] };

/**
 * The heartbeat: `{"op":"heartbeat"}` to every connection, so API Gateway's 10-minute idle timeout never
 * drops a quiet partner (docs/websocket.md#heartbeats-and-connection-lifetime: one at least every 5 minutes);
 * it also closes the connections whose key was revoked or whose account lost its entitlement since they
 * connected.
 */
export const HEARTBEAT = {
  handler: 'functions/handlers/schedule/heartbeat.ts',
  intervalMinutes: 4,
  tables: [
    { table: 'connections', access: 'write' },
    { table: 'subscriptions', access: 'write' },
    { table: 'apiKeys', access: 'get' },
    { table: 'accounts', access: 'get' },
  ],
} as const satisfies { handler: string; intervalMinutes: number; tables: readonly TableBinding[] };

/**
 * API Gateway closes a WebSocket connection after 2 hours at most; rows of a connection that vanished
 * without `$disconnect` expire (DynamoDB TTL) an hour after that.
 */
export const CONNECTION_ROW_TTL_SECONDS = 3 * 3600;

/**
 * How long a subscribed topic's marker, once read, is taken as still there: its subscribers are then queried
 * without reading it again. Markers outlive their rows by hours and an unsubscribe leaves them, so a marker
 * remembered a minute longer than it lived costs at most a needless Query; a topic found unmarked is never
 * remembered, so a new subscription is found at once. A followed symbol's price reads its marker once a
 * minute per process instead of at every batch (docs/storage.md#subscription-markers).
 */
export const MARKER_MEMORY_MS = 60_000;

/** The environment variable carrying the `@connections` endpoint (the stage's callback URL). */
export const CALLBACK_URL_ENV = 'WS_CALLBACK_URL';
