import { describe, expect, it } from 'vitest';
import { CLOSE_CODES } from '#contracts/websocket';
import { createHandler } from '#handlers/ws/connect';
import { observeMetrics } from '#scripts/local/metric-points';
import { connectionRecord, inMemorySessionPorts, webSocketEvent } from '../../../support/websocket-fakes.ts';

const CONNECTED_AT = Date.parse('2024-11-26T15:05:00Z');

describe('ws connect handler', () => {
  it('returns 200 and makes the connection its account one connection, with the authorized caller', async () => {
    const ports = inMemorySessionPorts();
    const handler = createHandler({ ports: () => ports });

    const result = await handler(
      webSocketEvent({ routeKey: '$connect', connectionId: 'conn-2', connectedAt: CONNECTED_AT }),
    );

    expect(result).toEqual({ statusCode: 200 });
    expect(await ports.connections.get('acme')).toEqual({
      accountId: 'acme',
      keyId: 'key-1',
      scopes: ['ws:connect', 'prices:read'],
      connectionId: 'conn-2',
      connectedAtMs: CONNECTED_AT,
    });
  });

  it('closes the previous connection of the account with 4409', async () => {
    const ports = inMemorySessionPorts();
    await ports.connections.claim(connectionRecord({ connectionId: 'conn-1' }));
    const handler = createHandler({ ports: () => ports });

    await handler(webSocketEvent({ routeKey: '$connect', connectionId: 'conn-2' }));

    expect(ports.clients.closes).toEqual([{ connectionId: 'conn-1', code: CLOSE_CODES.replaced }]);
    expect((await ports.connections.get('acme'))?.connectionId).toBe('conn-2');
  });

  it('leaves another account connection open', async () => {
    const ports = inMemorySessionPorts();
    await ports.connections.claim(connectionRecord({ accountId: 'globex', connectionId: 'conn-9' }));
    const handler = createHandler({ ports: () => ports });

    await handler(webSocketEvent({ routeKey: '$connect', connectionId: 'conn-2' }));

    expect(ports.clients.closes).toEqual([]);
    expect((await ports.connections.get('globex'))?.connectionId).toBe('conn-9');
  });

  it('keeps only the scopes it knows from the authorizer context', async () => {
    const ports = inMemorySessionPorts();
    const handler = createHandler({ ports: () => ports });

    await handler(
      webSocketEvent({
        routeKey: '$connect',
        authorizer: { accountId: 'acme', keyId: 'key-1', scopes: 'ws:connect,admin:all,alerts:read' },
      }),
    );

    expect((await ports.connections.get('acme'))?.scopes).toEqual(['ws:connect', 'alerts:read']);
  });

  it('throws and stores nothing when the event carries no authorizer context', async () => {
    const ports = inMemorySessionPorts();
    const handler = createHandler({ ports: () => ports });

    await expect(handler(webSocketEvent({ routeKey: '$connect', authorizer: {} }))).rejects.toThrow();
    expect(ports.connections.rows.size).toBe(0);
  });
});

describe('ws connect metrics (docs/operations.md#metrics)', () => {
  it('counts every connect, and an eviction when it replaced a connection', async () => {
    const ports = inMemorySessionPorts();
    const handler = createHandler({ ports: () => ports });
    const points: string[] = [];
    const stop = observeMetrics(({ id }) => points.push(id));
    try {
      await handler(
        webSocketEvent({ routeKey: '$connect', connectionId: 'conn-1', connectedAt: CONNECTED_AT }),
      );
      await handler(
        webSocketEvent({ routeKey: '$connect', connectionId: 'conn-2', connectedAt: CONNECTED_AT }),
      );
    } finally {
      stop();
    }
    expect(points).toEqual(['connects', 'connects', 'evictions']);
  });

  it('selects the market-data.v1 subprotocol when the handshake offered it, never the key entry', async () => {
    const handler = createHandler({ ports: () => inMemorySessionPorts() });

    const result = await handler({
      ...webSocketEvent({ routeKey: '$connect' }),
      headers: { 'Sec-WebSocket-Protocol': 'market-data.v1, key.mda_abcdefghijkl_secret' },
    });

    expect(result).toEqual({ statusCode: 200, headers: { 'Sec-WebSocket-Protocol': 'market-data.v1' } });
  });

  it('selects no subprotocol when only a key entry was offered', async () => {
    const handler = createHandler({ ports: () => inMemorySessionPorts() });

    const result = await handler({
      ...webSocketEvent({ routeKey: '$connect' }),
      headers: { 'Sec-WebSocket-Protocol': 'key.mda_abcdefghijkl_secret' },
    });

    expect(result).toEqual({ statusCode: 200 });
  });
});
