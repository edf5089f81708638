import { describe, expect, it } from 'vitest';
import { DynamoConnectionStore } from '#adapters/dynamo/connection-store';
import { DynamoMessageRate } from '#adapters/dynamo/message-rate';
import { DynamoSubscriptionStore } from '#adapters/dynamo/subscription-store';
import { CLIENT_MESSAGE_RATE } from '#contracts/websocket';
import type {
  ConnectionRecord,
  ConnectionStore,
  MessageRateLimiter,
  Subscription,
  SubscriptionStore,
} from '#domain/streaming/ports';
import { usePortImplementations } from '../../support/port-contracts.ts';
import {
  connectionRecord,
  InMemoryConnectionStore,
  InMemoryMessageRate,
  InMemorySubscriptionStore,
} from '../../support/websocket-fakes.ts';

/** The WebSocket session's stores (functions/domain/streaming/ports.ts): each fake against its DynamoDB adapter. */
const implementations = usePortImplementations();

async function listed(connections: ConnectionStore): Promise<ConnectionRecord[]> {
  const rows: ConnectionRecord[] = [];
  for await (const page of connections.list()) rows.push(...page);
  return rows.sort((a, b) => a.accountId.localeCompare(b.accountId));
}

describe.each(
  implementations<ConnectionStore>(
    () => new InMemoryConnectionStore(),
    async ({ client, table }) => new DynamoConnectionStore(client, await table('connections')),
  ),
)('ConnectionStore: $name', ({ create }) => {
  it('claims an account’s one connection, returning the row it replaced when that named another', async () => {
    const connections = await create();
    const first = connectionRecord({ connectionId: 'c1' });
    const second = connectionRecord({ connectionId: 'c2', connectedAtMs: first.connectedAtMs + 1 });
    expect(await connections.claim(first)).toBeUndefined();
    expect(await connections.claim(first)).toBeUndefined();
    expect(await connections.claim(second)).toEqual(first);
    expect(await connections.get('acme')).toEqual(second);
    expect(await connections.get('other')).toBeUndefined();
  });

  it('of two racing claims, ends naming exactly one, having evicted the other', async () => {
    const connections = await create();
    const claims = ['c1', 'c2'].map((connectionId) => connectionRecord({ connectionId }));
    const replaced = await Promise.all(claims.map((claim) => connections.claim(claim)));
    const stored = await connections.get('acme');
    expect(replaced.filter(Boolean)).toHaveLength(1);
    expect([replaced.find(Boolean)?.connectionId, stored?.connectionId].sort()).toEqual(['c1', 'c2']);
  });

  it('releases the row only while it names the connection', async () => {
    const connections = await create();
    await connections.claim(connectionRecord({ connectionId: 'c2' }));
    expect(await connections.release('acme', 'c1')).toBe(false);
    expect(await connections.get('acme')).toEqual(connectionRecord({ connectionId: 'c2' }));
    expect(await connections.release('acme', 'c2')).toBe(true);
    expect(await connections.get('acme')).toBeUndefined();
    expect(await connections.release('acme', 'c2')).toBe(false);
  });

  it('lists every connection row', async () => {
    const connections = await create();
    expect(await listed(connections)).toEqual([]);
    const rows = ['acme', 'beta', 'gamma'].map((accountId) =>
      connectionRecord({ accountId, connectionId: `c-${accountId}` }),
    );
    for (const row of rows) await connections.claim(row);
    expect(await listed(connections)).toEqual(rows);
  });
});

const subscriber = (connectionId: string) => ({
  connectionId,
  accountId: `account-${connectionId}`,
  keyId: `key-${connectionId}`,
});
const bySubscription = (a: Subscription, b: Subscription) =>
  `${a.channel}#${a.symbol ?? '*'}`.localeCompare(`${b.channel}#${b.symbol ?? '*'}`);

describe.each(
  implementations<SubscriptionStore>(
    () => new InMemorySubscriptionStore(),
    async ({ client, table }) => new DynamoSubscriptionStore(client, await table('subscriptions')),
  ),
)('SubscriptionStore: $name', ({ create }) => {
  it('lists a connection’s subscriptions, each once, a channel without symbols as the channel alone', async () => {
    const subscriptions = await create();
    await subscriptions.add(subscriber('c1'), [
      { channel: 'quotes', symbol: 'AAPL' },
      { channel: 'quotes', symbol: 'AAPL' },
      { channel: 'alerts.in_force' },
    ]);
    await subscriptions.add(subscriber('c1'), [{ channel: 'states', symbol: 'MSFT' }]);
    await subscriptions.add(subscriber('c2'), [{ channel: 'quotes', symbol: 'NVDA' }]);
    expect((await subscriptions.listOf('c1')).sort(bySubscription)).toEqual([
      { channel: 'alerts.in_force' },
      { channel: 'quotes', symbol: 'AAPL' },
      { channel: 'states', symbol: 'MSFT' },
    ]);
    expect(await subscriptions.listOf('c3')).toEqual([]);
  });

  it('finds the subscribers of a subscription', async () => {
    const subscriptions = await create();
    await subscriptions.add(subscriber('c1'), [
      { channel: 'quotes', symbol: 'AAPL' },
      { channel: 'alerts.in_force' },
    ]);
    await subscriptions.add(subscriber('c2'), [{ channel: 'quotes', symbol: 'AAPL' }]);
    const found = await subscriptions.subscribersOf({ channel: 'quotes', symbol: 'AAPL' });
    expect([...found].sort((a, b) => a.connectionId.localeCompare(b.connectionId))).toEqual([
      subscriber('c1'),
      subscriber('c2'),
    ]);
    expect(await subscriptions.subscribersOf({ channel: 'alerts.in_force' })).toEqual([subscriber('c1')]);
    expect(await subscriptions.subscribersOf({ channel: 'quotes', symbol: 'MSFT' })).toEqual([]);
  });

  it('removes a connection’s subscriptions, ones it never had too, leaving others’', async () => {
    const subscriptions = await create();
    await subscriptions.add(subscriber('c1'), [
      { channel: 'quotes', symbol: 'AAPL' },
      { channel: 'alerts.in_force' },
    ]);
    await subscriptions.add(subscriber('c2'), [{ channel: 'quotes', symbol: 'AAPL' }]);
    await subscriptions.remove('c1', [
      { channel: 'quotes', symbol: 'AAPL' },
      { channel: 'quotes', symbol: 'AAPL' },
      { channel: 'states', symbol: 'MSFT' },
    ]);
    await subscriptions.remove('c1', []);
    expect(await subscriptions.listOf('c1')).toEqual([{ channel: 'alerts.in_force' }]);
    expect(await subscriptions.subscribersOf({ channel: 'quotes', symbol: 'AAPL' })).toEqual([
      subscriber('c2'),
    ]);
  });
});

describe.each(
  implementations<MessageRateLimiter>(
    () => new InMemoryMessageRate(),
    async ({ client, table }) => new DynamoMessageRate(client, await table('subscriptions')),
  ),
)('MessageRateLimiter: $name', ({ create }) => {
  const windowMs = CLIENT_MESSAGE_RATE.windowSeconds * 1_000;
  const windowStart = Math.ceil(Date.parse('2024-11-26T15:00:00Z') / windowMs) * windowMs;

  it('counts a connection’s messages in a window, this one included, and starts again in the next', async () => {
    const rate = await create();
    expect(await rate.count('c1', windowStart)).toBe(1);
    expect(await rate.count('c1', windowStart + 1)).toBe(2);
    expect(await rate.count('c1', windowStart + windowMs - 1)).toBe(3);
    expect(await rate.count('c1', windowStart + windowMs)).toBe(1);
    expect(await rate.count('c1', windowStart + 3 * windowMs)).toBe(1);
  });

  it('counts each connection apart, and every one of concurrent messages', async () => {
    const rate = await create();
    const counts = await Promise.all(Array.from({ length: 5 }, () => rate.count('c1', windowStart)));
    expect([...counts].sort()).toEqual([1, 2, 3, 4, 5]);
    expect(await rate.count('c2', windowStart)).toBe(1);
  });
});
