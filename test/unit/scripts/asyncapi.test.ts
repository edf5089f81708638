import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type * as z from 'zod/mini';
import { CHANNEL_NAMES, CHANNELS, CLOSE_CODES, WS_BASE_PATH } from '#contracts/websocket';
import {
  clientOperationSchemas,
  pushSchemas,
  quotesBatchSchema,
  replySchemas,
  WS_ERROR_CODES,
} from '#domain/streaming/messages';
import { PROJECT_ROOT } from '#lib/project-root';
import { asyncApiDocument } from '#scripts/lib/asyncapi';

interface Document {
  asyncapi: string;
  info: { description: string };
  servers: Record<string, { protocol: string; pathname: string }>;
  channels: Record<
    string,
    { address: string | null; description: string; messages: Record<string, unknown> }
  >;
  operations: Record<string, { action: string; channel: { $ref: string }; reply?: unknown }>;
  components: {
    messages: Record<string, { payload: unknown; examples: { name: string; payload: unknown }[] }>;
  };
  'x-close-codes': { code: number; reason: string; onAws: string }[];
}

const document = asyncApiDocument() as unknown as Document;

describe('the AsyncAPI document', () => {
  it('is the committed docs/asyncapi.json (run npm run asyncapi after changing a message schema)', () => {
    const committed = JSON.parse(readFileSync(join(PROJECT_ROOT, 'docs', 'asyncapi.json'), 'utf8'));
    expect(committed).toEqual(document);
  });

  it('is AsyncAPI 3.0 with its servers on /ws/market/v1', () => {
    expect(document.asyncapi).toBe('3.0.0');
    expect(WS_BASE_PATH).toBe('/ws/market/v1');
    expect(Object.values(document.servers).map(({ protocol, pathname }) => [protocol, pathname])).toEqual([
      ['wss', '/ws/market/v1'],
      ['ws', '/ws/market/v1'],
    ]);
  });

  it.each(CHANNEL_NAMES.map((channel) => [channel, CHANNELS[channel].scope] as const))(
    'describes channel %s with its scope %s and a push operation',
    (channel, scope) => {
      const described = document.channels[channel];
      expect(described?.address).toBe(channel);
      expect(described?.description).toContain(`Scope \`${scope}\``);
      const pushes = Object.values(document.operations).filter(
        (operation) => operation.channel.$ref === `#/channels/${channel}`,
      );
      expect(pushes.map(({ action }) => action)).toEqual(['send']);
    },
  );

  // The channels: docs/websocket.md#channels-and-pushed-messages
  it('has the four documented channels besides the control channel', () => {
    expect(Object.keys(document.channels).sort()).toEqual([...CHANNEL_NAMES, 'control'].sort());
  });

  it('documents every close code, and how AWS shows it', () => {
    for (const code of Object.values(CLOSE_CODES)) {
      expect(document.info.description).toContain(`| ${code} |`);
    }
    expect(document['x-close-codes'].map(({ code }) => code)).toEqual([4401, 4403, 4409, 4429]);
    expect(document['x-close-codes'].map(({ onAws }) => onAws).join(' ')).toMatch(/401.*403.*"op":"close"/s);
  });

  it('answers each client operation, and shows an example of every error code', () => {
    expect(
      Object.entries(document.operations)
        .filter(([, op]) => op.action === 'receive')
        .map(([id]) => id),
    ).toEqual(['subscribe', 'unsubscribe', 'ping']);
    const errors = document.components.messages.error?.examples.map(({ name }) => name);
    expect(errors).toEqual([...WS_ERROR_CODES]);
  });

  it('takes the payloads from the schemas: a state push lists the snapshot fields', () => {
    const payload = JSON.stringify(document.components.messages.state?.payload);
    for (const field of ['tfc', 'setups', 'default_timeframe', 'chart_timeframes', 'pmg', 'in_force']) {
      expect(payload).toContain(`"${field}"`);
    }
  });
});

/** Every JSON example of docs/websocket.md that is a server message or a client operation. */
function documentedExamples(): unknown[] {
  const markdown = readFileSync(join(PROJECT_ROOT, 'docs', 'websocket.md'), 'utf8');
  const blocks = [...markdown.matchAll(/```json\n([\s\S]*?)```/g)].map(([, body]) => body ?? '');
  return blocks.flatMap((block) => {
    try {
      return [JSON.parse(block)];
    } catch {
      // A block of several messages: one per line.
      return block
        .split('\n')
        .filter((line) => line.trim().length > 0)
        .map((line) => JSON.parse(line));
    }
  });
}

function schemaOf(example: Record<string, unknown>): z.ZodMiniType | undefined {
  const schemas: Record<string, z.ZodMiniType> = { ...clientOperationSchemas, ...replySchemas };
  if (typeof example.op === 'string') return schemas[example.op];
  // A batched quotes frame has no `symbol`, and its data holds `items` (docs/websocket.md#batched-quotes).
  if (example.channel === 'quotes' && example.symbol === undefined) return quotesBatchSchema;
  return pushSchemas[example.channel as keyof typeof pushSchemas];
}

describe('docs/websocket.md', () => {
  const examples = documentedExamples() as Record<string, unknown>[];

  it('shows an example of every reply, push and error code', () => {
    const shown = new Set(examples.map((example) => String(example.op ?? example.channel)));
    for (const name of [...Object.keys(replySchemas), ...Object.keys(pushSchemas), 'subscribe', 'ping']) {
      expect(shown, name).toContain(name);
    }
    const codes = examples.map((example) => (example.error as { code?: string } | undefined)?.code);
    for (const code of WS_ERROR_CODES) expect(codes, code).toContain(code);
  });

  it('shows only messages that match their schemas, with no field the schemas do not know', () => {
    for (const example of examples) {
      const schema = schemaOf(example);
      expect(schema, JSON.stringify(example)).toBeDefined();
      const parsed = schema?.safeParse(example);
      expect(parsed?.success, `${JSON.stringify(example)}: ${parsed?.error}`).toBe(true);
      expect(parsed?.data, 'a field the schema does not know').toEqual(example);
    }
  });
});
