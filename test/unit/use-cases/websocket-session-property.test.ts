import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { CHANNEL_NAMES } from '#contracts/websocket';
import { replySchemas } from '#domain/streaming/messages';
import { handleClientMessage } from '#use-cases/websocket-session';
import { connectionRecord, inMemorySessionPorts } from '../../support/websocket-fakes.ts';

const TRACKED = new Set(['AAPL', 'MSFT', 'ES1!', 'SPY']);

/** Bodies a client could send: anything, near-valid operations, and valid ones with odd values. */
const bodies = fc.oneof(
  fc.string(),
  fc.json(),
  fc
    .record(
      {
        op: fc.oneof(fc.constantFrom('subscribe', 'unsubscribe', 'ping'), fc.string(), fc.integer()),
        id: fc.oneof(fc.string({ maxLength: 80 }), fc.integer(), fc.boolean()),
        topics: fc.oneof(
          fc.array(
            fc.record(
              {
                channel: fc.oneof(fc.constantFrom(...CHANNEL_NAMES), fc.string()),
                symbols: fc.oneof(
                  fc.array(fc.oneof(fc.constantFrom('aapl', ' msft ', 'es1!', 'nope', '*', ''), fc.string())),
                  fc.anything(),
                ),
              },
              { requiredKeys: ['channel'] },
            ),
            { maxLength: 25 },
          ),
          fc.anything(),
        ),
      },
      { requiredKeys: [] },
    )
    .map((message) => JSON.stringify(message)),
);

const isReply = (reply: unknown) =>
  Object.values(replySchemas).some((schema) => z.strictObject(schema.shape).safeParse(reply).success);

describe('handleClientMessage with arbitrary input', () => {
  it('always answers with well-formed replies, never throws, and never closes the connection', async () => {
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => {
        const ports = inMemorySessionPorts();
        const connection = connectionRecord({
          connectionId: 'conn-1',
          scopes: ['ws:connect', 'prices:read'],
        });
        await ports.connections.claim(connection);

        const replies = await handleClientMessage(connection, body, {
          ...ports,
          trackedSymbols: async () => TRACKED,
        });

        expect(replies.length).toBeGreaterThan(0);
        for (const reply of replies) expect(isReply(reply), JSON.stringify(reply)).toBe(true);
        expect(ports.clients.closes).toEqual([]);
        // Only tracked symbols (or an alert channel's wildcard) are ever subscribed.
        for (const topic of ports.subscriptions.topicsOf('conn-1')) {
          const [channel, symbol] = topic.split('#');
          expect(symbol === '*' ? channel?.startsWith('alerts.') : TRACKED.has(symbol ?? '')).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});
