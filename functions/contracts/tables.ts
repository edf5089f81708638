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
  /** Streams drive the WebSocket fan-out (ARCHITECTURE A3). */
  readonly stream?: 'NEW_AND_OLD_IMAGES';
  readonly timeToLiveAttribute?: string;
}

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
  /** The latest trade per symbol; its stream feeds the `quotes` channel. */
  prices: {
    envVar: 'PRICES_TABLE',
    partitionKey: { name: 'symbol', type: 'S' },
    stream: 'NEW_AND_OLD_IMAGES',
  },
  /**
   * The ingest path's state per symbol, written once per batch: the watermark of applied trades and the
   * latest (forming) bar of every interval.
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
} as const satisfies Record<string, TableDefinition>;

export type TableId = keyof typeof TABLES;

export const TABLE_IDS = Object.keys(TABLES) as TableId[];

export type TableAccess = 'read' | 'write';

export interface TableBinding {
  readonly table: TableId;
  readonly access: TableAccess;
}
