import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REST_ROUTES } from '#contracts/routes';
import { PROJECT_ROOT } from '#lib/project-root';
import { openApiDocument } from '../../../scripts/lib/openapi.ts';

const document = (await openApiDocument()) as {
  paths: Record<string, { get: { operationId: string; responses: Record<string, { content?: unknown }> } }>;
};

describe('the OpenAPI document', () => {
  it('is the committed docs/openapi.json (run npm run openapi after changing a route or schema)', () => {
    const committed = JSON.parse(readFileSync(join(PROJECT_ROOT, 'docs', 'openapi.json'), 'utf8'));
    expect(committed).toEqual(document);
  });

  it.each(REST_ROUTES.map((route) => [route.path, route] as const))(
    'describes GET %s with its operation id and a JSON schema of its 200 response',
    (path, route) => {
      const operation = document.paths[path]?.get;
      expect(operation?.operationId).toBe(route.id);
      expect(JSON.stringify(operation?.responses[200]?.content)).toContain('"type":"object"');
    },
  );

  // The fields of a candle response: docs/partner-guide.md#candles
  it('takes the response fields from the schemas: a candle response lists the documented fields', () => {
    const schema = JSON.stringify(document.paths['/candles/{symbol}']?.get.responses[200]);
    for (const field of ['symbol', 'interval', 'bars', 'partial_bar_included', 'open', 'volume']) {
      expect(schema).toContain(`"${field}"`);
    }
  });
});
