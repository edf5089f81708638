/**
 * The DynamoDB tables of the service, defined once. The CDK creates them from these definitions, the local
 * stack creates the same tables in dynalite, and each function finds a table's name in `envVar`.
 */
export interface KeyAttribute {
  readonly name: string;
  readonly type: 'S' | 'N';
}

export interface IndexDefinition {
  readonly name: string;
  readonly partitionKey: KeyAttribute;
  readonly sortKey?: KeyAttribute;
}

export interface TableDefinition {
  /** The environment variable that carries the table's physical name to a function. */
  readonly envVar: string;
  readonly partitionKey: KeyAttribute;
  readonly sortKey?: KeyAttribute;
  readonly indexes?: readonly IndexDefinition[];
  /**
   * Streams drive the WebSocket fan-out (docs/architecture.md#fan-out-dynamodb-streams-to-the-connections).
   */
  readonly stream?: 'NEW_AND_OLD_IMAGES';
  readonly timeToLiveAttribute?: string;
}

/** An event feed's keys: one partition per feed, events sorted by id (ADR 0009). */
const FEED_KEYS = {
  partitionKey: { name: 'feed', type: 'S' },
  sortKey: { name: 'id', type: 'N' },
} as const;

/**
 * A feed's events by the time they triggered, sparse: one item per block (at the block's latest time), and a
 * future's alert at its own (ADR 0009).
 */
const FEED_BY_TIME = {
  name: 'byTime',
  partitionKey: { name: 'feed', type: 'S' },
  sortKey: { name: 'triggeredAtMs', type: 'N' },
} as const;

export const TABLES = {
  /** One row per partner account: its API Access entitlement. */
  accounts: {
    envVar: 'ACCOUNTS_TABLE',
    partitionKey: { name: 'accountId', type: 'S' },
  },
  /** One row per API key: the SHA-256 of the key, never the key itself. */
  apiKeys: {
    envVar: 'API_KEYS_TABLE',
    partitionKey: { name: 'keyId', type: 'S' },
    indexes: [
      {
        name: 'byAccount',
        partitionKey: { name: 'accountId', type: 'S' },
        sortKey: { name: 'createdAt', type: 'S' },
      },
    ],
  },
  /** The tracked universe. `byListing` keeps every instrument in one sorted partition for ordered pages. */
  instruments: {
    envVar: 'INSTRUMENTS_TABLE',
    partitionKey: { name: 'symbol', type: 'S' },
    indexes: [
      {
        name: 'byListing',
        partitionKey: { name: 'listing', type: 'S' },
        sortKey: { name: 'symbol', type: 'S' },
      },
    ],
  },
  /**
   * The ingest path's state per symbol, written once per batch: the watermark of applied trades, the latest
   * (forming) bar of every interval and the latest price, the one copy of it (ADR 0023). No stream: the
   * ingest posts the quote of a commit that moved the price itself (ADR 0024).
   */
  ledgers: {
    envVar: 'LEDGERS_TABLE',
    partitionKey: { name: 'symbol', type: 'S' },
  },
  /** Bars that a later period replaced in the ledger: one item per bar, `series` = `<symbol>#<interval>`. */
  bars: {
    envVar: 'BARS_TABLE',
    partitionKey: { name: 'series', type: 'S' },
    sortKey: { name: 'time', type: 'N' },
  },
  /**
   * The session trade log (docs/storage.md#the-session-trade-log): what an amendment rebuilds a minute's bars
   * from. `day` = `<symbol>#<session date>`, `entry` = `<minute start ms>#<ledger version>`: one item per
   * minute and writing commit, holding the trades (and amendments) applied in that minute since its last item
   * (a ledger holds its latest minute's until they are written). Items expire TRADE_LOG_RETENTION_DAYS after
   * their minute.
   */
  tradeLog: {
    envVar: 'TRADE_LOG_TABLE',
    partitionKey: { name: 'day', type: 'S' },
    sortKey: { name: 'entry', type: 'S' },
    timeToLiveAttribute: 'expiresAt',
  },
  /** The derived Strat state per symbol (TFC and setup rows); its stream feeds the `states` channel. */
  states: {
    envVar: 'STATES_TABLE',
    partitionKey: { name: 'symbol', type: 'S' },
    stream: 'NEW_AND_OLD_IMAGES',
  },
  /** One item per setup row, so `/setups/current` reads each timeframe's rows in symbol order. */
  setups: {
    envVar: 'SETUPS_TABLE',
    partitionKey: { name: 'timeframe', type: 'S' },
    sortKey: { name: 'symbol', type: 'S' },
  },
  /**
   * In-force alerts as one feed: `id` increases with commit order (ADR 0009). `byTime` finds the alerts of
   * a time window, `bySymbol` a symbol's. Its stream feeds the `alerts.in_force` channel. An item expires
   * 30 days after the next one is appended (`expiresAt`): the newest is kept, so ids never restart.
   */
  alerts: {
    envVar: 'ALERTS_TABLE',
    ...FEED_KEYS,
    timeToLiveAttribute: 'expiresAt',
    indexes: [
      FEED_BY_TIME,
      {
        name: 'bySymbol',
        partitionKey: { name: 'symbol', type: 'S' },
        sortKey: { name: 'triggeredAtMs', type: 'N' },
      },
    ],
    stream: 'NEW_AND_OLD_IMAGES',
  },
  /** Simultaneous breaks, the same feed design as `alerts`; feeds `alerts.simultaneous_breaks`. */
  breaks: {
    envVar: 'BREAKS_TABLE',
    ...FEED_KEYS,
    timeToLiveAttribute: 'expiresAt',
    indexes: [FEED_BY_TIME],
    stream: 'NEW_AND_OLD_IMAGES',
  },
  /**
   * One row per partner account: its one live WebSocket connection
   * (docs/websocket.md#one-connection-per-account). `$connect` overwrites it and evicts the connection it
   * named; `$disconnect` deletes it only while it still names its own id
   * (docs/architecture.md#websocket-api-gateway-websocket-api-with-mapped-close-codes).
   */
  connections: {
    envVar: 'CONNECTIONS_TABLE',
    partitionKey: { name: 'accountId', type: 'S' },
    timeToLiveAttribute: 'expiresAt',
  },
  /**
   * One row per (topic, connection): `topic` = `<channel>#<symbol>`, or `<channel>#*` for an alert channel
   * subscribed without symbols. The fan-out finds a record's subscribers with one Query per topic, never a
   * Scan; `byConnection` finds a connection's rows when it unsubscribes a whole channel or goes away.
   */
  subscriptions: {
    envVar: 'SUBSCRIPTIONS_TABLE',
    partitionKey: { name: 'topic', type: 'S' },
    sortKey: { name: 'connectionId', type: 'S' },
    indexes: [
      {
        name: 'byConnection',
        partitionKey: { name: 'connectionId', type: 'S' },
        sortKey: { name: 'topic', type: 'S' },
      },
    ],
    timeToLiveAttribute: 'expiresAt',
  },
  /**
   * Billing: one `ws_message` row per pushed event (docs/websocket.md#metering), by account. `messageId` =
   * `<stream record time>#<stream event id>` (a quote's: `<trade time>#<symbol>#<ledger version>`) sorts an
   * account's rows by time and makes a retried push overwrite its rows instead of billing twice.
   */
  usage: {
    envVar: 'USAGE_TABLE',
    partitionKey: { name: 'accountId', type: 'S' },
    sortKey: { name: 'messageId', type: 'S' },
    // Rows expire USAGE_RETENTION_DAYS after their push (docs/operations.md#usage-report).
    timeToLiveAttribute: 'expiresAt',
  },
  /**
   * Each feed's head and block records, and a once-key record per break (and per alert committed before
   * alerts were marked) by its natural key: each is appended once (ADR 0009).
   */
  eventGuards: {
    envVar: 'EVENT_GUARDS_TABLE',
    partitionKey: { name: 'key', type: 'S' },
    timeToLiveAttribute: 'expiresAt',
  },
  /**
   * One item per provider feed (`alpaca`, `polygon-stocks`, ...): the live feed connector's position, the
   * trade time through which every trade it received was put, so a restart fills what it missed
   * (docs/data-sources.md#a-restart-loses-nothing). Written at most every few seconds, never backwards.
   */
  feedPositions: {
    envVar: 'FEED_POSITIONS_TABLE',
    partitionKey: { name: 'feed', type: 'S' },
  },
  /**
   * One item per long-running consumer of the trades stream (`ingest`): which task holds it, when it last
   * renewed it, and each shard's position, the last record whose every trade is committed
   * (functions/contracts/ingest-consumer.ts, docs/adr/0026-long-running-ingest-consumer.md). Renewed every
   * second by its holder, every write conditioned on holding it.
   */
  consumerLeases: {
    envVar: 'CONSUMER_LEASES_TABLE',
    partitionKey: { name: 'lease', type: 'S' },
  },
} as const satisfies Record<string, TableDefinition>;

/**
 * How long the session trade log keeps a minute: amendments come within the session (the providers send them
 * the same day); a few days leave room for a redrive of dead-lettered records.
 */
export const TRADE_LOG_RETENTION_DAYS = 4;

/**
 * How long a `ws_message` usage row is kept: two months, so a month's report can be run in the first days of
 * the next, and its CSV archived for billing.
 */
export const USAGE_RETENTION_DAYS = 62;

export type TableId = keyof typeof TABLES;

export const TABLE_IDS = Object.keys(TABLES) as TableId[];

/**
 * What a function may do to a table: `get` reads items by key only (GetItem, BatchGetItem: a key and its
 * account, never a listing), `read` also queries and scans, `write` also puts, updates and deletes.
 */
export type TableAccess = 'get' | 'read' | 'write';

export interface TableBinding {
  readonly table: TableId;
  readonly access: TableAccess;
}
