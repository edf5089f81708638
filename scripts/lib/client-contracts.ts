import { compile } from 'json-schema-to-typescript';
import * as z from 'zod/mini';
import { ERROR_STATUS } from '#contracts/errors';
import { REST_BASE_PATH, REST_ROUTES, type RestRoute } from '#contracts/routes';
import { CHANNEL_NAMES, CLOSE_CODES, WS_BASE_PATH } from '#contracts/websocket';
import { barSchema, candlesSchema } from '#domain/market-data/candles';
import { instrumentSchema } from '#domain/market-data/instruments';
import { INTERVALS } from '#domain/market-data/intervals';
import { priceItemSchema } from '#domain/market-data/prices';
import { wireForms } from '#domain/requests/query-params';
import { inForceAlertSchema, NEXT_SINCE_ID_HEADER, simultaneousBreakSchema } from '#domain/strat/alerts';
import { setupRowSchema } from '#domain/strat/current-setups';
import { stateSnapshotSchema } from '#domain/strat/state-snapshot';
import { TIMEFRAMES } from '#domain/strat/timeframes';
import {
  acceptedTopicSchema,
  clientOperationSchemas,
  pushSchemas,
  quotesBatchSchema,
  replySchemas,
  topicSchema,
  WS_ERROR_CODES,
} from '#domain/streaming/messages';
import { routeContracts } from './openapi.ts';

/**
 * The TypeScript contracts of the client library (clients/typescript/src/contracts.ts), generated from the
 * same zod schemas, parameter wire forms, route table and constants that docs/openapi.json and
 * docs/asyncapi.json are built from (docs/architecture.md#contracts-one-source-of-truth-for-each), so the
 * client never restates a field. `npm run client-contracts` writes the file; a test fails when it is stale.
 */

/** The name of each route's query type and 200 response type, by route id. */
const ROUTE_TYPES: Record<(typeof REST_ROUTES)[number]['id'], { query: string; response: string }> = {
  listInstruments: { query: 'ListInstrumentsQuery', response: 'InstrumentList' },
  getInstrument: { query: 'GetInstrumentQuery', response: 'Instrument' },
  getMarketStatus: { query: 'GetMarketStatusQuery', response: 'MarketStatus' },
  getLatestPrices: { query: 'LatestPricesQuery', response: 'LatestPrices' },
  getCandles: { query: 'CandlesQuery', response: 'Candles' },
  getState: { query: 'GetStateQuery', response: 'StateSnapshot' },
  getCurrentSetups: { query: 'CurrentSetupsQuery', response: 'CurrentSetups' },
  getInForceAlerts: { query: 'InForceAlertsQuery', response: 'InForceAlertList' },
  getSimultaneousBreaks: { query: 'SimultaneousBreaksQuery', response: 'SimultaneousBreakList' },
};

/** Shared shapes, named once and referenced by the others. */
const NAMED_SCHEMAS: Record<string, z.ZodMiniType> = {
  Instrument: instrumentSchema,
  PriceItem: priceItemSchema,
  SetupRow: setupRowSchema,
  StateSnapshot: stateSnapshotSchema,
  InForceAlert: inForceAlertSchema,
  SimultaneousBreak: simultaneousBreakSchema,
  Bar: barSchema,
  Candles: candlesSchema,
  Topic: topicSchema,
  AcceptedTopic: acceptedTopicSchema,
  QuotePush: pushSchemas.quotes,
  QuotesBatchPush: quotesBatchSchema,
  StatePush: pushSchemas.states,
  InForceAlertPush: pushSchemas['alerts.in_force'],
  SimultaneousBreakPush: pushSchemas['alerts.simultaneous_breaks'],
  SubscribeMessage: clientOperationSchemas.subscribe,
  UnsubscribeMessage: clientOperationSchemas.unsubscribe,
  PingMessage: clientOperationSchemas.ping,
  SubscribedReply: replySchemas.subscribed,
  UnsubscribedReply: replySchemas.unsubscribed,
  PongReply: replySchemas.pong,
  ErrorReply: replySchemas.error,
  HeartbeatMessage: replySchemas.heartbeat,
  CloseMessage: replySchemas.close,
  ErrorEnvelope: z.object({ error: z.object({ code: z.string(), message: z.string() }) }),
};

type JsonSchema = Record<string, unknown>;

/** A route's query as a caller writes it: each parameter in its wire form, lists as arrays. */
function querySchema(contract: { query: z.ZodMiniType }): JsonSchema {
  const shape = (contract.query as z.ZodMiniObject).shape as Record<string, z.ZodMiniType>;
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [name, schema] of Object.entries(shape)) {
    const form = wireForms.get(schema);
    if (!form) throw new Error(`query parameter ${name} has no wire form`);
    properties[name] = { ...form.schema, ...(form.description ? { description: form.description } : {}) };
    if (form.required) required.push(name);
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

async function definitions(): Promise<Record<string, JsonSchema>> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(NAMED_SCHEMAS)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    target: 'draft-7',
    io: 'output',
    unrepresentable: 'any',
    uri: (id) => `#/definitions/${id}`,
  }) as { schemas: Record<string, JsonSchema> };
  const defs: Record<string, JsonSchema> = {};
  for (const [id, { $schema: _dialect, id: _id, ...schema }] of Object.entries(schemas)) {
    defs[id] = { ...schema, title: id };
  }
  const contracts = await routeContracts();
  for (const route of REST_ROUTES as readonly RestRoute[]) {
    const names = ROUTE_TYPES[route.id as keyof typeof ROUTE_TYPES];
    const contract = contracts.get(route.id);
    if (!contract) throw new Error(`no contract for ${route.id}`);
    defs[names.query] = { ...querySchema(contract), title: names.query };
    if (!defs[names.response]) {
      const { $schema: _dialect, ...schema } = z.toJSONSchema(contract.response, {
        target: 'draft-7',
        io: 'output',
        unrepresentable: 'any',
        metadata: registry,
        uri: (id) => `#/definitions/${id}`,
      } as Parameters<typeof z.toJSONSchema>[1]) as JsonSchema;
      defs[names.response] = { ...schema, title: names.response };
    }
  }
  return defs;
}

const constant = (name: string, doc: string, value: unknown) =>
  `/** ${doc} */\nexport const ${name} = ${JSON.stringify(value, null, 2)} as const;\n`;

/** The source of clients/typescript/src/contracts.ts. */
export async function clientContractsSource(): Promise<string> {
  const defs = await definitions();
  const root = {
    title: 'Contracts',
    type: 'object',
    properties: Object.fromEntries(Object.keys(defs).map((id) => [id, { $ref: `#/definitions/${id}` }])),
    additionalProperties: false,
    definitions: defs,
  };
  const types = await compile(root as never, 'Contracts', {
    bannerComment: '',
    additionalProperties: false,
    unreachableDefinitions: true,
    declareExternallyReferenced: true,
    style: { singleQuote: true, printWidth: 110 },
    // Arrays as arrays, not one tuple type per allowed length.
    maxItems: -1,
    ignoreMinAndMaxItems: true,
  });
  const routes = Object.fromEntries(
    (REST_ROUTES as readonly RestRoute[]).map((route) => [
      route.id,
      { method: route.method, path: route.path },
    ]),
  );
  const routeTypeMap = Object.entries(ROUTE_TYPES)
    .map(([id, names]) => `  ${id}: { query: ${names.query}; response: ${names.response} };`)
    .join('\n');
  return [
    "// Generated by `npm run client-contracts` from the service's contracts (scripts/lib/client-contracts.ts).",
    '// Do not edit: change the zod schemas, the route table or the constants, then run it again.',
    '',
    constant(
      'REST_BASE_PATH',
      "The REST API's versioned prefix (docs/partner-guide.md#versioning).",
      REST_BASE_PATH,
    ),
    constant('WS_BASE_PATH', "The WebSocket API's path (docs/websocket.md).", WS_BASE_PATH),
    constant('REST_ROUTES', 'Every REST route, by operation id (docs/openapi.json).', routes),
    constant(
      'ERROR_STATUS',
      'Every REST error code and its HTTP status (docs/partner-guide.md#errors).',
      ERROR_STATUS,
    ),
    constant(
      'WS_ERROR_CODES',
      "The WebSocket API's error codes (docs/websocket.md#error-codes).",
      WS_ERROR_CODES,
    ),
    constant(
      'CHANNEL_NAMES',
      'The WebSocket channels (docs/websocket.md#channels-and-pushed-messages).',
      CHANNEL_NAMES,
    ),
    constant('CLOSE_CODES', 'The WebSocket close codes (docs/websocket.md#close-codes).', CLOSE_CODES),
    constant('INTERVALS', 'Candle intervals (docs/candles.md#intervals).', INTERVALS),
    constant('TIMEFRAMES', 'Strat timeframes, in order (docs/strat.md#timeframes).', TIMEFRAMES),
    constant(
      'NEXT_SINCE_ID_HEADER',
      'The header naming where a since_id poll goes on (docs/partner-guide.md#polling-past-a-narrow-filter).',
      NEXT_SINCE_ID_HEADER,
    ),
    'export type RouteId = keyof typeof REST_ROUTES;',
    'export type ChannelName = (typeof CHANNEL_NAMES)[number];',
    'export type ErrorCode = keyof typeof ERROR_STATUS;',
    'export type Interval = (typeof INTERVALS)[number];',
    'export type Timeframe = (typeof TIMEFRAMES)[number];',
    '',
    "/** Each route's query and 200 response. */",
    'export interface RouteTypes {',
    routeTypeMap,
    '}',
    '',
    // The generator's note on each definition says nothing a reader needs.
    types.replace(
      /\/\*\*\n \* This interface was referenced by `Contracts`'s JSON-Schema\n \* via the `definition` "\w+".\n \*\/\n/g,
      '',
    ),
  ].join('\n');
}
