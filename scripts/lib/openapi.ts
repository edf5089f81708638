import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as z from 'zod/mini';
import { BODILESS_ERRORS, ERROR_STATUS, type ErrorCode } from '#contracts/errors';
import { RETRY_AFTER_SECONDS } from '#contracts/gateway-responses';
import { REST_BASE_PATH, REST_ROUTES, type RestRoute } from '#contracts/routes';
import type { Scope } from '#contracts/scopes';
import { wireForms } from '#domain/requests/query-params';
import { PROJECT_ROOT } from '#lib/project-root';
import type { RestContract } from '#runtime/rest-handler';

/**
 * The OpenAPI 3.1 document of the REST API, built from the one route table and each handler's contract
 * (its zod query and response schemas, the wire form of each parameter and the error codes it answers,
 * docs/architecture.md#contracts-one-source-of-truth-for-each): nothing here restates a field.
 */
type Contract = RestContract<z.ZodMiniType, z.ZodMiniType>;

/** Who publishes the API, and under which terms (docs/partner-guide.md#getting-and-revoking-keys). */
export const API_INFO = {
  title: 'Market Data Alerts Partner Service',
  version: 'v1',
  contact: { name: 'Market Data Alerts partner support', url: 'https://api.example.com/support' },
  license: { name: 'Proprietary: use under the partner agreement', url: 'https://api.example.com/terms' },
} as const;

/** One tag per scope: a partner's key unlocks whole tags (docs/partner-guide.md#scopes). */
const TAGS: Record<Exclude<Scope, 'ws:connect'>, { name: string; description: string }> = {
  'metadata:read': {
    name: 'Metadata',
    description: 'Instruments and market status (scope `metadata:read`).',
  },
  'prices:read': { name: 'Prices', description: 'Latest trade prices (scope `prices:read`).' },
  'candles:read': { name: 'Candles', description: 'OHLCV candles of ten intervals (scope `candles:read`).' },
  'states:read': { name: 'Strat', description: 'Strat states and setups (scope `states:read`).' },
  'alerts:read': {
    name: 'Alerts',
    description: 'In-force alerts and simultaneous breaks, polled by `since_id` (scope `alerts:read`).',
  },
};

/** What every route can answer before or around its logic: the gateway's refusals and our own fault. */
const GATEWAY_ERRORS: readonly ErrorCode[] = [
  'missing_api_key',
  'inactive_entitlement',
  'missing_scope',
  'rate_limit_exceeded',
  'internal_error',
];

/** Real answers of the local stack, by route id and status (`npm run openapi:examples` writes them). */
export const OPENAPI_EXAMPLES_FILE = 'scripts/openapi-examples.json';

type Examples = Record<string, Record<string, unknown>>;

function readExamples(): Examples {
  return JSON.parse(readFileSync(join(PROJECT_ROOT, OPENAPI_EXAMPLES_FILE), 'utf8')) as Examples;
}

/** The local stack's REST base (`npm start`; README.md#running-locally). */
const LOCAL_SERVER = {
  url: `http://127.0.0.1:{port}${REST_BASE_PATH}`,
  description: 'The local stack (`npm start`): the same routes on this machine, the demo key it prints.',
  variables: { port: { default: '3000' } },
};

/**
 * Headers over the limit never reach a route (docs/partner-guide.md#errors): on AWS, API Gateway answers 413
 * itself, with a body it may not let the service customise; locally, the stack answers 431 with the envelope.
 */
const HEADER_LIMIT_RESPONSES: readonly { status: number; description: string; enveloped: boolean }[] = [
  {
    status: ERROR_STATUS.request_too_large,
    description:
      "On AWS: the headers are over API Gateway's limit (10,240 bytes of header values in all). API Gateway " +
      'answers 413 itself; its body is the envelope with `code` request_too_large where API Gateway applies ' +
      "the service's gateway response, otherwise API Gateway's own. Go by the status.",
    enveloped: false,
  },
  {
    status: ERROR_STATUS.request_headers_too_large,
    description: 'Locally: the headers are over 16 KB. The envelope, `code` request_headers_too_large.',
    enveloped: true,
  },
];

const errorEnvelopeSchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

function jsonSchema(schema: z.ZodMiniType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return rest;
}

function queryParameters(contract: Contract) {
  if (!(contract.query instanceof z.ZodMiniObject)) throw new Error('a route query must be a zod object');
  return Object.entries(contract.query.shape as Record<string, z.ZodMiniType>).map(([name, schema]) => {
    const form = wireForms.get(schema);
    if (!form) throw new Error(`query parameter ${name} has no wire form (withWireForm)`);
    return {
      name,
      in: 'query',
      required: form.required ?? false,
      ...(form.description ? { description: form.description } : {}),
      ...(form.commaSeparated ? { style: 'form', explode: true } : {}),
      // An empty value (`limit=`) counts as absent (functions/domain/requests/query-params.ts): a validating
      // proxy must let it through as the service does.
      ...(form.required ? {} : { allowEmptyValue: true }),
      schema: form.accepts ?? form.schema,
    };
  });
}

function parameters(route: RestRoute, contract: Contract) {
  const path = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    description: 'A tracked ticker, case-insensitive; `!` raw or as `%21` (`ES1!`).',
    schema: { type: 'string' },
  }));
  return [...path, ...queryParameters(contract)];
}

const RETRY_AFTER = {
  description: `Seconds to wait before retrying (${RETRY_AFTER_SECONDS} for the per-key rate).`,
  schema: { type: 'integer', minimum: 0 },
};

/** An example of a status: the route's own answer, else the gateway's (`403-inactive` a second 403). */
function exampleOf(examples: Examples, routeId: string, status: number) {
  const own = examples[routeId]?.[status];
  if (own !== undefined) return { example: own };
  const gateway = examples.gateway ?? {};
  if (status === 403 && gateway['403-inactive'] !== undefined && gateway[403] !== undefined) {
    return {
      examples: {
        missing_scope: { value: gateway[403] },
        inactive_entitlement: { value: gateway['403-inactive'] },
      },
    };
  }
  return gateway[status] === undefined ? {} : { example: gateway[status] };
}

/** The error envelope as a response's JSON content, with the route's (or the gateway's) example. */
function envelopeContent(examples: Examples, routeId: string, status: number) {
  return {
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/ErrorEnvelope' },
        ...exampleOf(examples, routeId, status),
      },
    },
  };
}

/** The error responses of a route, one per status, each listing its codes. */
function errorResponses(contract: Contract, routeId: string, examples: Examples) {
  const codes = [...contract.errors, ...GATEWAY_ERRORS];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes)
    byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  const responses: Record<string, unknown> = {};
  for (const [status, statusCodes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const enveloped = statusCodes.filter((code) => !BODILESS_ERRORS.has(code));
    const bodiless = statusCodes.filter((code) => BODILESS_ERRORS.has(code));
    const parts = [
      ...(enveloped.length ? [`The error envelope, \`code\` one of: ${enveloped.join(', ')}.`] : []),
      ...bodiless.map((code) => `${code}: no body at all (no envelope, no content type).`),
    ];
    responses[status] = {
      description: parts.join(' '),
      ...(status === ERROR_STATUS.rate_limit_exceeded ? { headers: { 'Retry-After': RETRY_AFTER } } : {}),
      ...(enveloped.length ? envelopeContent(examples, routeId, status) : {}),
    };
  }
  for (const { status, description, enveloped } of HEADER_LIMIT_RESPONSES) {
    responses[status] = {
      description,
      ...(enveloped ? envelopeContent(examples, routeId, status) : {}),
    };
  }
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)));
}

function operation(route: RestRoute, contract: Contract, examples: Examples) {
  return {
    operationId: route.id,
    summary: contract.summary,
    description: `Scope \`${route.scope}\`.`,
    tags: [TAGS[route.scope as keyof typeof TAGS].name],
    security: [{ apiKey: [] }, { bearer: [] }],
    parameters: parameters(route, contract),
    responses: {
      200: {
        description: 'OK',
        ...(contract.headers ? { headers: contract.headers } : {}),
        content: {
          'application/json': {
            schema: jsonSchema(contract.response, 'output'),
            ...exampleOf(examples, route.id, 200),
          },
        },
      },
      ...errorResponses(contract, route.id, examples),
    },
  };
}

/** Each route's handler module's contract, by route id. */
export async function routeContracts(): Promise<Map<string, Contract>> {
  const contracts = new Map<string, Contract>();
  for (const route of REST_ROUTES as readonly RestRoute[]) {
    const module = (await import(pathToFileURL(join(PROJECT_ROOT, route.handler)).href)) as {
      contract: Contract;
    };
    contracts.set(route.id, module.contract);
  }
  return contracts;
}

export async function openApiDocument(): Promise<Record<string, unknown>> {
  const contracts = await routeContracts();
  const examples = readExamples();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of REST_ROUTES as readonly RestRoute[]) {
    const contract = contracts.get(route.id) as Contract;
    paths[route.path] = {
      ...paths[route.path],
      [route.method.toLowerCase()]: operation(route, contract, examples),
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      ...API_INFO,
      description:
        'Read-only market data and Strat analytics. Every error body is the envelope ' +
        '`{"error":{"code","message"}}`; the codes: ' +
        `${Object.keys(ERROR_STATUS).join(', ')}. Reference: docs/partner-guide.md.`,
    },
    servers: [
      {
        url: `https://{host}${REST_BASE_PATH}`,
        description: 'The service on AWS.',
        variables: { host: { default: 'api.example.com' } },
      },
      LOCAL_SERVER,
    ],
    tags: Object.values(TAGS),
    security: [{ apiKey: [] }, { bearer: [] }],
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        bearer: { type: 'http', scheme: 'bearer' },
      },
      schemas: { ErrorEnvelope: jsonSchema(errorEnvelopeSchema, 'output') },
    },
    paths,
  };
}
