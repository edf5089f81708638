import type { Scope } from './scopes.ts';
import type { TableBinding } from './tables.ts';

/** The REST API's versioned prefix (docs/partner-guide.md#versioning); part of {base_url}. */
export const REST_BASE_PATH = '/api/market/v1';

export interface RestRoute {
  /** Stable identifier: construct ids, function names, OpenAPI operation ids. */
  readonly id: string;
  readonly method: 'GET';
  /** Path below REST_BASE_PATH, with `{param}` segments as API Gateway writes them. */
  readonly path: string;
  readonly scope: Scope;
  /** The Lambda entry, relative to the project root. */
  readonly handler: string;
  /** The tables the handler reads or writes; the CDK grants exactly these. */
  readonly tables: readonly TableBinding[];
}

/** The one route table: it drives the CDK, the local gateway, the authorizer's scope check and the tests. */
export const REST_ROUTES = [
  {
    id: 'listInstruments',
    method: 'GET',
    path: '/instruments',
    scope: 'metadata:read',
    handler: 'functions/handlers/rest/list-instruments.ts',
    tables: [{ table: 'instruments', access: 'read' }],
  },
  {
    id: 'getInstrument',
    method: 'GET',
    path: '/instruments/{symbol}',
    scope: 'metadata:read',
    handler: 'functions/handlers/rest/get-instrument.ts',
    tables: [{ table: 'instruments', access: 'read' }],
  },
  {
    id: 'getMarketStatus',
    method: 'GET',
    path: '/market-status',
    scope: 'metadata:read',
    handler: 'functions/handlers/rest/get-market-status.ts',
    tables: [],
  },
  {
    id: 'getLatestPrices',
    method: 'GET',
    path: '/prices/latest',
    scope: 'prices:read',
    handler: 'functions/handlers/rest/get-latest-prices.ts',
    tables: [{ table: 'ledgers', access: 'read' }],
  },
  {
    id: 'getCandles',
    method: 'GET',
    path: '/candles/{symbol}',
    scope: 'candles:read',
    handler: 'functions/handlers/rest/get-candles.ts',
    tables: [
      { table: 'instruments', access: 'read' },
      { table: 'bars', access: 'read' },
      { table: 'ledgers', access: 'read' },
    ],
  },
  {
    id: 'getState',
    method: 'GET',
    path: '/states/{symbol}',
    scope: 'states:read',
    handler: 'functions/handlers/rest/get-state.ts',
    tables: [
      { table: 'instruments', access: 'read' },
      { table: 'ledgers', access: 'read' },
    ],
  },
  {
    id: 'getCurrentSetups',
    method: 'GET',
    path: '/setups/current',
    scope: 'states:read',
    handler: 'functions/handlers/rest/get-current-setups.ts',
    tables: [
      { table: 'states', access: 'read' },
      { table: 'setups', access: 'read' },
    ],
  },
  {
    id: 'getInForceAlerts',
    method: 'GET',
    path: '/alerts/in-force',
    scope: 'alerts:read',
    handler: 'functions/handlers/rest/get-in-force-alerts.ts',
    // The feed's head (its last committed id) lives with the once-key records (ADR 0009).
    tables: [
      { table: 'alerts', access: 'read' },
      { table: 'eventGuards', access: 'get' },
    ],
  },
  {
    id: 'getSimultaneousBreaks',
    method: 'GET',
    path: '/alerts/simultaneous-breaks',
    scope: 'alerts:read',
    handler: 'functions/handlers/rest/get-simultaneous-breaks.ts',
    // The feed's head (its last committed id) lives with the once-key records (ADR 0009).
    tables: [
      { table: 'breaks', access: 'read' },
      { table: 'eventGuards', access: 'get' },
    ],
  },
] as const satisfies readonly RestRoute[];

/** The authorizer's Lambda entry and the tables it reads. */
export const AUTHORIZER = {
  handler: 'functions/handlers/auth/authorizer.ts',
  tables: [
    { table: 'apiKeys', access: 'get' },
    { table: 'accounts', access: 'get' },
  ],
} as const satisfies { handler: string; timeoutSeconds?: number; tables: readonly TableBinding[] };

/**
 * The ingest Lambda: Kinesis batches of trades folded into ledgers (with the latest prices) and bars
 * (docs/architecture.md#ingestion-a-kinesis-stream-of-trades-one-windowed-consumer).
 */
export const INGEST = {
  handler: 'functions/handlers/ingest/trades.ts',
  /** The function's timeout, on AWS and in the local stack (a batch past it is failed and delivered again). */
  timeoutSeconds: 60,
  /** Its enhanced fan-out consumer's name on the trades stream. */
  streamConsumerName: 'ingest',
  tables: [
    { table: 'ledgers', access: 'write' },
    { table: 'bars', access: 'write' },
    { table: 'tradeLog', access: 'write' },
    { table: 'instruments', access: 'read' },
    { table: 'states', access: 'write' },
    { table: 'setups', access: 'write' },
    { table: 'alerts', access: 'write' },
    { table: 'breaks', access: 'write' },
    { table: 'eventGuards', access: 'write' },
  ],
} as const satisfies {
  handler: string;
  timeoutSeconds?: number;
  streamConsumerName: string;
  tables: readonly TableBinding[];
};

/**
 * The clock tick (EventBridge schedule on AWS, the local stack's clock locally): derives every symbol's
 * state again so periods that ended without trades roll over.
 */
export const CLOCK_TICK = {
  handler: 'functions/handlers/schedule/clock-tick.ts',
  /** The function's timeout, on AWS and in the local stack. */
  timeoutSeconds: 50,
  /**
   * It rolls the states over once in each span of `everyMinutes`, at its first run `afterSeconds` into it:
   * without a trade a state changes only when a period ends, every period ends on a quarter-hour, and by then
   * the symbols that trade have their new period's state from the ingest (docs/strat.md#stored-states-and-setup-rows).
   */
  rollStates: { everyMinutes: 15, afterSeconds: 60 },
  /**
   * It compares the setup rows with the stored states once in each span too, half-way through it: rows a
   * writer left behind converge within a quarter-hour, and the sweep of every row stays away from the burst
   * of writes that follows a close.
   */
  repairSetupRows: { everyMinutes: 15, afterSeconds: 450 },
  tables: [
    { table: 'ledgers', access: 'read' },
    { table: 'instruments', access: 'read' },
    { table: 'states', access: 'write' },
    { table: 'setups', access: 'write' },
    // The newest simultaneous break: REST limits are raised for a while after one.
    { table: 'breaks', access: 'read' },
    { table: 'eventGuards', access: 'get' },
  ],
} as const satisfies {
  handler: string;
  timeoutSeconds?: number;
  rollStates: { everyMinutes: number; afterSeconds: number };
  repairSetupRows: { everyMinutes: number; afterSeconds: number };
  tables: readonly TableBinding[];
};

/** API Gateway's `resource` for a route: the full path template as the authorizer and handlers see it. */
export function resourcePath(route: Pick<RestRoute, 'path'>): string {
  return `${REST_BASE_PATH}${route.path}`;
}

export function findRouteByResource(method: string, resource: string): RestRoute | undefined {
  return (REST_ROUTES as readonly RestRoute[]).find(
    (route) => route.method === method && resourcePath(route) === resource,
  );
}
