import { describe, expect, it } from 'vitest';
import { CLOSE_CODES } from '#contracts/websocket';
import type { Credential } from '#domain/access/ports';
import { sendHeartbeats } from '#use-cases/heartbeat';
import {
  connectionRecord,
  FakeClientConnections,
  InMemoryConnectionStore,
  InMemorySubscriptionStore,
} from '../../support/websocket-fakes.ts';

/** Three connections, listed two per page; key-1 revoked, key-2's account lapsed. */
async function setup(clients: FakeClientConnections) {
  const connections = new InMemoryConnectionStore(2);
  for (const index of [1, 2, 3]) {
    await connections.claim(
      connectionRecord({ accountId: `acct-${index}`, connectionId: `conn-${index}`, keyId: `key-${index}` }),
    );
  }
  const credentials = async (keyId: string): Promise<Credential | undefined> => ({
    key: {
      keyId,
      accountId: 'any',
      label: 'test',
      scopes: ['ws:connect'],
      secretHash: 'hash',
      usageIdentifierKey: 'usage',
      createdAt: '2026-01-01T00:00:00Z',
      ...(keyId === 'key-1' ? { revokedAt: '2026-02-01T00:00:00Z' } : {}),
    },
    account: { accountId: 'any', entitlement: keyId === 'key-2' ? 'inactive' : 'active', updatedAt: '' },
  });
  return {
    connections,
    subscriptions: new InMemorySubscriptionStore(),
    clients,
    credentials,
    concurrency: 2,
  };
}

describe('sendHeartbeats', () => {
  it('reports the close code of each connection it closed, for the refusal counts', async () => {
    const round = await sendHeartbeats(await setup(new FakeClientConnections()));

    expect(round).toMatchObject({ sent: 1, gone: 0, closed: 2, failed: 0, errors: [] });
    expect([...round.closeCodes].sort()).toEqual([CLOSE_CODES.noValidKey, CLOSE_CODES.forbidden].sort());
  });

  it("reports each failed connection's reason and goes on with the others", async () => {
    const round = await sendHeartbeats(await setup(new FakeClientConnections({ failing: ['conn-3'] })));

    expect(round).toMatchObject({ sent: 0, closed: 2, failed: 1 });
    expect(round.errors).toHaveLength(1);
  });
});
