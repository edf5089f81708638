import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CLOSE_CODES } from '#contracts/websocket';
import type { ConnectionRecord, ConnectionStore } from '#domain/streaming/ports';
import { closeConnection, handleClientMessage, openConnection } from '#use-cases/websocket-session';
import {
  connectionRecord,
  FakeClientConnections,
  InMemoryConnectionStore,
  InMemorySubscriptionStore,
  inMemorySessionPorts,
} from '../../support/websocket-fakes.ts';

const first = connectionRecord({ connectionId: 'conn-1', connectedAtMs: 1_000 });
const second = connectionRecord({ connectionId: 'conn-2', connectedAtMs: 2_000 });
const other = connectionRecord({ accountId: 'globex', keyId: 'key-9', connectionId: 'conn-9' });

/** A connection store whose claims wait until the test lets each one through. */
class GatedConnectionStore extends InMemoryConnectionStore {
  private readonly gates = new Map<string, () => void>();

  override async claim(connection: ConnectionRecord) {
    await new Promise<void>((resolve) => this.gates.set(connection.connectionId, resolve));
    return super.claim(connection);
  }

  open(connectionId: string) {
    const gate = this.gates.get(connectionId);
    if (!gate) throw new Error(`no claim of ${connectionId} is waiting`);
    gate();
  }
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('openConnection', () => {
  it('makes the connection its account one connection when the account has none', async () => {
    const ports = inMemorySessionPorts();

    await openConnection(first, ports);

    expect(await ports.connections.get('acme')).toEqual(first);
    expect(ports.clients.closes).toEqual([]);
  });

  it('closes the previous connection of the account with 4409 and keeps the new one', async () => {
    const ports = inMemorySessionPorts();
    await openConnection(first, ports);

    await openConnection(second, ports);

    expect(ports.clients.closes).toEqual([{ connectionId: 'conn-1', code: CLOSE_CODES.replaced }]);
    expect(await ports.connections.get('acme')).toEqual(second);
  });

  it('leaves the connection of another account untouched', async () => {
    const ports = inMemorySessionPorts();
    await openConnection(other, ports);
    await openConnection(first, ports);

    await openConnection(second, ports);

    expect(ports.clients.closes.map(({ connectionId }) => connectionId)).toEqual(['conn-1']);
    expect(await ports.connections.get('globex')).toEqual(other);
  });

  it('closes nothing when the same connection claims again (a retried $connect)', async () => {
    const ports = inMemorySessionPorts();
    await openConnection(first, ports);

    await openConnection(first, ports);

    expect(ports.clients.closes).toEqual([]);
    expect(await ports.connections.get('acme')).toEqual(first);
  });

  it('keeps exactly one connection and closes the other with 4409 when two connects race', async () => {
    const ports = inMemorySessionPorts();

    await Promise.all([openConnection(first, ports), openConnection(second, ports)]);

    expect([...ports.connections.rows.values()]).toEqual([second]);
    expect(ports.clients.closes).toEqual([{ connectionId: 'conn-1', code: CLOSE_CODES.replaced }]);
  });

  it('keeps the connection whose claim landed last when claims land out of order', async () => {
    const connections = new GatedConnectionStore();
    const ports = { ...inMemorySessionPorts(), connections };
    const both = Promise.all([openConnection(first, ports), openConnection(second, ports)]);

    connections.open('conn-2');
    await settle();
    connections.open('conn-1');
    await both;

    expect([...connections.rows.values()]).toEqual([first]);
    expect(ports.clients.closes).toEqual([{ connectionId: 'conn-2', code: CLOSE_CODES.replaced }]);
  });

  it('keeps exactly one connection of an account whatever order racing claims land in', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: 6 }), fc.scheduler(), async (count, scheduler) => {
        const store = new InMemoryConnectionStore();
        const landed: string[] = [];
        const connections: ConnectionStore = {
          claim: (connection) =>
            scheduler.schedule(Promise.resolve(), connection.connectionId).then(() => {
              landed.push(connection.connectionId);
              return store.claim(connection);
            }),
          get: (accountId) => store.get(accountId),
          release: (accountId, connectionId) => store.release(accountId, connectionId),
          list: () => store.list(),
        };
        const clients = new FakeClientConnections();
        const ports = { connections, clients, subscriptions: new InMemorySubscriptionStore() };
        const ids = Array.from({ length: count }, (_, index) => `conn-${index}`);

        await scheduler.waitFor(
          Promise.all(ids.map((connectionId) => openConnection(connectionRecord({ connectionId }), ports))),
        );

        const survivor = landed.at(-1);
        expect([...store.rows.values()].map(({ connectionId }) => connectionId)).toEqual([survivor]);
        expect(clients.closes.map(({ connectionId }) => connectionId).sort()).toEqual(
          ids.filter((id) => id !== survivor).sort(),
        );
        expect(clients.closes.every(({ code }) => code === CLOSE_CODES.replaced)).toBe(true);
      }),
      { numRuns: 50 },
    );
  });
});

describe('closeConnection', () => {
  it('deletes the account row and every subscription of the connection', async () => {
    const ports = inMemorySessionPorts();
    await openConnection(first, ports);
    await ports.subscriptions.add(first, [
      { channel: 'quotes', symbol: 'AAPL' },
      { channel: 'alerts.in_force' },
    ]);

    await closeConnection(first, ports);

    expect(await ports.connections.get('acme')).toBeUndefined();
    expect(ports.subscriptions.topicsOf('conn-1')).toEqual([]);
  });

  it('does not delete the successor row when the evicted connection disconnects, but removes its subscriptions', async () => {
    const ports = inMemorySessionPorts();
    await openConnection(first, ports);
    await ports.subscriptions.add(first, [{ channel: 'quotes', symbol: 'AAPL' }]);
    await openConnection(second, ports);
    await ports.subscriptions.add(second, [
      { channel: 'quotes', symbol: 'AAPL' },
      { channel: 'alerts.in_force' },
    ]);

    await closeConnection(first, ports);

    expect(await ports.connections.get('acme')).toEqual(second);
    expect(ports.subscriptions.topicsOf('conn-1')).toEqual([]);
    expect(ports.subscriptions.topicsOf('conn-2')).toEqual(['alerts.in_force#*', 'quotes#AAPL']);
  });
});

describe('handleClientMessage from a replaced connection', () => {
  it('closes it with 4409 and returns no replies when the account row names another connection', async () => {
    const ports = inMemorySessionPorts();
    await ports.connections.claim(first);
    await ports.connections.claim(second);

    const replies = await handleClientMessage(
      first,
      JSON.stringify({ op: 'subscribe', topics: [{ channel: 'quotes', symbols: ['AAPL'] }] }),
      { ...ports, trackedSymbols: async () => new Set(['AAPL']) },
    );

    expect(replies).toEqual([]);
    expect(ports.clients.closes).toEqual([{ connectionId: 'conn-1', code: CLOSE_CODES.replaced }]);
    expect(ports.subscriptions.topicsOf('conn-1')).toEqual([]);
    expect(await ports.connections.get('acme')).toEqual(second);
  });

  it('answers a ping of the account current connection', async () => {
    const ports = inMemorySessionPorts();
    await openConnection(first, ports);
    await openConnection(second, ports);

    const replies = await handleClientMessage(second, '{"op":"ping"}', {
      ...ports,
      trackedSymbols: async () => new Set<string>(),
    });

    expect(replies).toEqual([{ op: 'pong' }]);
  });
});
