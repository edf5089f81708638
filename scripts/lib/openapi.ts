import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as z from 'zod/mini';
import { ERROR_STATUS } from '#contracts/errors';
import { REST_BASE_PATH, REST_ROUTES, type RestRoute } from '#contracts/routes';
import { PROJECT_ROOT } from '#lib/project-root';
import type { RestContract } from '#runtime/rest-handler';

/**
 * The OpenAPI 3.1 document of the REST API, built from the one route table and each handler's contract
 * (its zod query and response schemas, docs/architecture.md#contracts-one-source-of-truth-for-each): nothing
 * here restates a field.
 */
type Contract = RestContract<z.ZodMiniType, z.ZodMiniType>;

const errorEnvelopeSchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

function jsonSchema(schema: z.ZodMiniType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return rest;
}

function parameters(route: RestRoute, contract: Contract) {
  const query = jsonSchema(contract.query, 'input') as { properties?: Record<string, unknown> };
  const path = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  const queryParameters = Object.entries(query.properties ?? {}).map(([name, schema]) => ({
    name,
    in: 'query',
    required: false,
    schema,
  }));
  return [...path, ...queryParameters];
}

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
});

function operation(route: RestRoute, contract: Contract) {
  return {
    operationId: route.id,
    summary: contract.summary,
    description: `Scope \`${route.scope}\`.`,
    security: [{ apiKey: [] }, { bearer: [] }],
    parameters: parameters(route, contract),
    responses: {
      200: {
        description: 'OK',
        content: { 'application/json': { schema: jsonSchema(contract.response, 'output') } },
      },
      400: errorResponse('invalid_parameter, missing_symbols'),
      401: errorResponse('missing_api_key'),
      403: errorResponse('inactive_entitlement, missing_scope'),
      404: errorResponse('unknown_symbol, not_found; an unknown candle interval is a 404 with no body'),
      429: {
        ...errorResponse('rate_limit_exceeded'),
        headers: { 'Retry-After': { schema: { type: 'integer' } } },
      },
    },
  };
}

export async function openApiDocument(): Promise<Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of REST_ROUTES as readonly RestRoute[]) {
    const module = (await import(pathToFileURL(join(PROJECT_ROOT, route.handler)).href)) as {
      contract: Contract;
    };
    paths[route.path] = {
      ...paths[route.path],
      [route.method.toLowerCase()]: operation(route, module.contract),
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Market Data Alerts Partner Service',
      version: 'v1',
      description: `Read-only market data and Strat analytics. Error codes: ${Object.keys(ERROR_STATUS).join(', ')}.`,
    },
    servers: [
      { url: `https://{host}${REST_BASE_PATH}`, variables: { host: { default: 'api.example.com' } } },
    ],
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
