import { describe, expect, it } from 'vitest';
import { createHandler } from '#handlers/ws/disconnect';
import { connectionRecord, inMemorySessionPorts, webSocketEvent } from '../../../support/websocket-fakes.ts';

describe('ws disconnect handler', () => {
  it('returns 200 and removes the account row and every subscription of the connection', async () => {
    const ports = inMemorySessionPorts();
    const connection = connectionRecord({ connectionId: 'conn-1' });
    await ports.connections.claim(connection);
    await ports.subscriptions.add(connection, [
      { channel: 'quotes', symbol: 'AAPL' },
      { channel: 'alerts.in_force' },
    ]);
    const handler = createHandler({ ports: () => ports });

    const result = await handler(webSocketEvent({ routeKey: '$disconnect', connectionId: 'conn-1' }));

    expect(result).toEqual({ statusCode: 200 });
    expect(await ports.connections.get('acme')).toBeUndefined();
    expect(ports.subscriptions.topicsOf('conn-1')).toEqual([]);
  });

  it('keeps the successor row when an evicted connection disconnects, but removes its own subscriptions', async () => {
    const ports = inMemorySessionPorts();
    const evicted = connectionRecord({ connectionId: 'conn-1' });
    const successor = connectionRecord({ connectionId: 'conn-2' });
    await ports.subscriptions.add(evicted, [{ channel: 'quotes', symbol: 'AAPL' }]);
    await ports.subscriptions.add(successor, [{ channel: 'quotes', symbol: 'AAPL' }]);
    await ports.connections.claim(successor);
    const handler = createHandler({ ports: () => ports });

    await handler(webSocketEvent({ routeKey: '$disconnect', connectionId: 'conn-1' }));

    expect(await ports.connections.get('acme')).toEqual(successor);
    expect(ports.subscriptions.topicsOf('conn-1')).toEqual([]);
    expect(ports.subscriptions.topicsOf('conn-2')).toEqual(['quotes#AAPL']);
  });
});
