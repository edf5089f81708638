import { describe, expect, it, vi } from 'vitest';
import { CLIENT_MESSAGE_RATE, CLOSE_CODES } from '#contracts/websocket';
import type { CredentialLookup } from '#domain/access/ports';
import { createHandler } from '#handlers/ws/message';
import {
  connectionRecord,
  inMemorySessionPorts,
  keysWithScopes,
  webSocketEvent,
} from '../../../support/websocket-fakes.ts';

const TRACKED = new Set(['AAPL', 'MSFT']);

/** The account's connection `conn-1` (scopes `ws:connect,prices:read`) and the handler over in-memory ports. */
async function setup(
  options: Parameters<typeof inMemorySessionPorts>[0] & { credentials?: CredentialLookup } = {},
) {
  const { credentials, ...clientOptions } = options;
  const ports = inMemorySessionPorts(clientOptions);
  await ports.connections.claim(
    connectionRecord({ connectionId: 'conn-1', scopes: ['ws:connect', 'prices:read'] }),
  );
  const handler = createHandler({
    ports: () => ({ ...ports, trackedSymbols: async () => TRACKED }),
    credentials: () => credentials ?? keysWithScopes(['ws:connect', 'prices:read']),
  });
  const message = (body: unknown, connectionId = 'conn-1') =>
    handler(
      webSocketEvent({
        routeKey: '$default',
        connectionId,
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    );
  return { ports, message };
}

describe('ws message handler', () => {
  it('returns 200 and sends the replies in order: errors first, then subscribed', async () => {
    const { ports, message } = await setup();

    const result = await message({
      op: 'subscribe',
      id: 'r1',
      topics: [
        { channel: 'quotes', symbols: ['aapl', 'nope'] },
        { channel: 'states', symbols: ['AAPL'] },
        { channel: 'news' },
      ],
    });

    expect(result).toEqual({ statusCode: 200 });
    expect(ports.clients.sentTo('conn-1')).toEqual([
      {
        op: 'error',
        id: 'r1',
        error: { code: 'missing_scope', message: 'missing scope' },
        topic: { channel: 'states', symbols: ['AAPL'] },
      },
      {
        op: 'error',
        id: 'r1',
        error: { code: 'unknown_channel', message: 'unknown channel' },
        topic: { channel: 'news' },
      },
      {
        op: 'subscribed',
        id: 'r1',
        topics: [{ channel: 'quotes', symbols: ['AAPL'], unknown_symbols: ['NOPE'] }],
      },
    ]);
    expect(ports.subscriptions.topicsOf('conn-1')).toEqual(['quotes#AAPL']);
  });

  it('judges a subscribe by the key as it is now: a scope added since the handshake counts', async () => {
    const { ports, message } = await setup({
      credentials: keysWithScopes(['ws:connect', 'prices:read', 'states:read']),
    });
    await message({ op: 'subscribe', topics: [{ channel: 'states', symbols: ['AAPL'] }] });
    expect(ports.clients.sentTo('conn-1')).toEqual([
      { op: 'subscribed', topics: [{ channel: 'states', symbols: ['AAPL'], unknown_symbols: [] }] },
    ]);
  });

  it('refuses a channel whose scope was removed since the handshake', async () => {
    const { ports, message } = await setup({ credentials: keysWithScopes(['ws:connect']) });
    await message({ op: 'subscribe', topics: [{ channel: 'quotes', symbols: ['AAPL'] }] });
    expect(ports.clients.sentTo('conn-1')).toEqual([
      {
        op: 'error',
        error: { code: 'missing_scope', message: 'missing scope' },
        topic: { channel: 'quotes', symbols: ['AAPL'] },
      },
      { op: 'subscribed', topics: [] },
    ]);
    expect(ports.subscriptions.topicsOf('conn-1')).toEqual([]);
  });

  it('subscribes nothing for a revoked key, and still answers ping', async () => {
    const revoked: CredentialLookup = async (keyId) => {
      const credential = await keysWithScopes(['ws:connect', 'prices:read'])(keyId);
      return credential && { ...credential, key: { ...credential.key, revokedAt: '2024-11-26T15:00:00Z' } };
    };
    const { ports, message } = await setup({ credentials: revoked });
    await message({ op: 'subscribe', topics: [{ channel: 'quotes', symbols: ['AAPL'] }] });
    await message({ op: 'ping' });
    expect(ports.subscriptions.topicsOf('conn-1')).toEqual([]);
    expect(ports.clients.sentTo('conn-1').at(-1)).toEqual({ op: 'pong' });
  });

  it('answers internal_error, in the service shape, when handling a message fails unexpectedly', async () => {
    const { ports, message } = await setup();
    vi.spyOn(ports.subscriptions, 'add').mockRejectedValueOnce(new Error('DynamoDB is down'));

    const result = await message({ op: 'subscribe', topics: [{ channel: 'quotes', symbols: ['AAPL'] }] });

    expect(result).toEqual({ statusCode: 200 });
    expect(ports.clients.sentTo('conn-1')).toEqual([
      { op: 'error', error: { code: 'internal_error', message: 'internal error' } },
    ]);
  });

  it('answers a ping with pong', async () => {
    const { ports, message } = await setup();

    await message({ op: 'ping', id: 9 });

    expect(ports.clients.sentTo('conn-1')).toEqual([{ op: 'pong', id: 9 }]);
  });

  it('answers invalid_message to a body that is not JSON and keeps the connection', async () => {
    const { ports, message } = await setup();

    await message('{nope');

    expect(ports.clients.sentTo('conn-1')).toEqual([
      { op: 'error', error: { code: 'invalid_message', message: 'the message is not JSON' } },
    ]);
    expect(ports.clients.closes).toEqual([]);
  });

  it('stops sending replies once the connection is gone', async () => {
    const { ports, message } = await setup({ gone: ['conn-1'] });
    const send = vi.spyOn(ports.clients, 'send');

    const result = await message({ op: 'subscribe', topics: [{ channel: 'news' }, { channel: 'quotes' }] });

    expect(result).toEqual({ statusCode: 200 });
    expect(send).toHaveBeenCalledTimes(1);
  });

  it('closes a connection that is no longer its account one with 4409 and sends it no reply', async () => {
    const { ports, message } = await setup();
    await ports.connections.claim(connectionRecord({ connectionId: 'conn-2' }));

    const result = await message({ op: 'ping' }, 'conn-1');

    expect(result).toEqual({ statusCode: 200 });
    expect(ports.clients.closes).toEqual([{ connectionId: 'conn-1', code: CLOSE_CODES.replaced }]);
    expect(ports.clients.sentTo('conn-1')).toEqual([]);
  });

  it('bounds what a flooding connection costs: no read or write past its allowance, a few answers, one close', async () => {
    const { messages, answeredRefusals, closeAt } = CLIENT_MESSAGE_RATE;
    const lookups = { count: 0 };
    const keys = keysWithScopes(['ws:connect', 'prices:read']);
    const { ports, message } = await setup({
      credentials: async (keyId) => {
        lookups.count += 1;
        return keys(keyId);
      },
    });

    for (let id = 1; id <= closeAt + 20; id++) await message({ op: 'ping', id });

    const sent = ports.clients.sentTo('conn-1') as { op: string }[];
    expect(sent.filter(({ op }) => op === 'pong')).toHaveLength(messages);
    expect(sent.filter(({ op }) => op === 'error')).toHaveLength(answeredRefusals);
    expect(ports.clients.closes).toEqual([{ connectionId: 'conn-1', code: CLOSE_CODES.messageRateExceeded }]);
    // Past the allowance, nothing reached storage: no counter write, no key lookup.
    expect(ports.messageRate.writes).toBe(messages);
    expect(lookups.count).toBe(messages);
  });
});
