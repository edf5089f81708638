import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { Scope } from '#contracts/scopes';
import { CLOSE_CODES } from '#contracts/websocket';
import type { Credential } from '#domain/access/ports';
import { createHandler, handlerOn } from '#handlers/schedule/heartbeat';
import {
  connectionRecord,
  FakeClientConnections,
  InMemoryConnectionStore,
  InMemorySubscriptionStore,
} from '../../../support/websocket-fakes.ts';

/** Five accounts' connections, listed two per page. */
async function setup(clients: FakeClientConnections) {
  const ports = {
    connections: new InMemoryConnectionStore(2),
    subscriptions: new InMemorySubscriptionStore(),
    clients,
  };
  for (const index of [1, 2, 3, 4, 5]) {
    const connection = connectionRecord({
      accountId: `acct-${index}`,
      connectionId: `conn-${index}`,
      keyId: `key-${index}`,
    });
    await ports.connections.claim(connection);
    await ports.subscriptions.add(connection, [{ channel: 'quotes', symbol: 'AAPL' }]);
  }
  return ports;
}

/** Every connection's key valid and its account active, unless `overrides` says otherwise (by key id). */
function credentials(
  overrides: Record<string, Partial<{ revoked: boolean; active: boolean; scopes: Scope[] }>> = {},
) {
  return () =>
    async (keyId: string): Promise<Credential | undefined> => {
      const override = overrides[keyId] ?? {};
      if (keyId === 'missing') return undefined;
      return {
        key: {
          keyId,
          accountId: 'any',
          label: 'test',
          scopes: override.scopes ?? ['ws:connect', 'prices:read'],
          secretHash: 'hash',
          usageIdentifierKey: 'usage',
          createdAt: '2026-01-01T00:00:00Z',
          ...(override.revoked ? { revokedAt: '2026-02-01T00:00:00Z' } : {}),
        },
        account: {
          accountId: 'any',
          entitlement: override.active === false ? 'inactive' : 'active',
          updatedAt: '',
        },
      };
    };
}

describe('heartbeat handler', () => {
  it('sends {"op":"heartbeat"} to every connection on every page', async () => {
    const ports = await setup(new FakeClientConnections());

    const result = await createHandler({ ports: () => ports, credentials: credentials() })();

    expect(result).toEqual({ sent: 5, gone: 0, closed: 0, failed: 0 });
    for (const index of [1, 2, 3, 4, 5]) {
      expect(ports.clients.sentTo(`conn-${index}`).map((message) => JSON.stringify(message))).toEqual([
        '{"op":"heartbeat"}',
      ]);
    }
  });

  it('cleans up the row and subscriptions of a gone connection and counts it', async () => {
    const ports = await setup(new FakeClientConnections({ gone: ['conn-2', 'conn-5'] }));

    const result = await createHandler({ ports: () => ports, credentials: credentials() })();

    expect(result).toEqual({ sent: 3, gone: 2, closed: 0, failed: 0 });
    expect([...ports.connections.rows.keys()].sort()).toEqual(['acct-1', 'acct-3', 'acct-4']);
    expect(ports.subscriptions.topicsOf('conn-2')).toEqual([]);
    expect(ports.subscriptions.topicsOf('conn-5')).toEqual([]);
    expect(ports.subscriptions.topicsOf('conn-1')).toEqual(['quotes#AAPL']);
  });

  it('sends nothing when no one is connected', async () => {
    const clients = new FakeClientConnections();
    const ports = {
      connections: new InMemoryConnectionStore(),
      subscriptions: new InMemorySubscriptionStore(),
      clients,
    };

    expect(await createHandler({ ports: () => ports, credentials: credentials() })()).toEqual({
      sent: 0,
      gone: 0,
      closed: 0,
      failed: 0,
    });
    expect(clients.messages.size).toBe(0);
  });

  it('closes a revoked key with 4401 and a lapsed entitlement or a key without ws:connect with 4403', async () => {
    const ports = await setup(new FakeClientConnections());
    const overrides = {
      'key-1': { revoked: true },
      'key-2': { active: false },
      'key-3': { scopes: ['prices:read'] as Scope[] },
    };

    const result = await createHandler({ ports: () => ports, credentials: credentials(overrides) })();

    expect(result).toEqual({ sent: 2, gone: 0, closed: 3, failed: 0 });
    expect(ports.clients.closes).toEqual(
      expect.arrayContaining([
        { connectionId: 'conn-1', code: CLOSE_CODES.noValidKey },
        { connectionId: 'conn-2', code: CLOSE_CODES.forbidden },
        { connectionId: 'conn-3', code: CLOSE_CODES.forbidden },
      ]),
    );
    expect([...ports.connections.rows.keys()].sort()).toEqual(['acct-4', 'acct-5']);
    expect(ports.subscriptions.topicsOf('conn-1')).toEqual([]);
  });

  it('goes on with the other connections when one send fails', async () => {
    const ports = await setup(new FakeClientConnections({ failing: ['conn-1'] }));

    const result = await createHandler({ ports: () => ports, credentials: credentials() })();

    expect(result).toEqual({ sent: 4, gone: 0, closed: 0, failed: 1 });
  });

  it('is wired on the service’s ports, checking keys with the uncached lookup (handlerOn, as on AWS and locally)', async () => {
    const ports = await setup(new FakeClientConnections());
    // Both lookups, as the service's ports hold them: the heartbeat must take the uncached one.
    const servicePorts = {
      connectionStore: () => ports.connections,
      subscriptionStore: () => ports.subscriptions,
      clientConnections: () => ports.clients,
      credentialLookup: credentials(),
      freshCredentialLookup: credentials({ 'key-3': { revoked: true } }),
    };

    const handler = handlerOn(servicePorts);
    const result = await handler({}, {} as Context);

    expect(result).toEqual({ sent: 4, gone: 0, closed: 1, failed: 0 });
  });
});
