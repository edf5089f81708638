import { describe, expect, it, vi } from 'vitest';
import type { Credential, CredentialLookup } from '#domain/access/ports';
import type { ChannelEvent } from '#domain/streaming/channel-events';
import type { Subscriber, Subscription } from '#domain/streaming/ports';
import { fanOut } from '#use-cases/fan-out';
import {
  connectionRecord,
  credentialsFrom,
  everyKeyAllowed,
  FakeClientConnections,
  fanOutPorts,
  subscriber,
} from '../../support/websocket-fakes.ts';

const RECORDED_AT_MS = Date.parse('2024-11-26T15:30:00Z');
const NOW_MS = Date.parse('2024-11-26T15:30:01.500Z');

function quote(eventId: string, symbol: string, price = 100): ChannelEvent {
  return {
    eventId,
    recordedAtMs: RECORDED_AT_MS,
    channel: 'quotes',
    symbols: [symbol],
    message: { channel: 'quotes', symbol, data: { symbol, price, volume: 10 } },
  };
}

function inForce(eventId: string, symbol: string): ChannelEvent {
  return {
    eventId,
    recordedAtMs: RECORDED_AT_MS,
    channel: 'alerts.in_force',
    symbols: [symbol],
    message: {
      channel: 'alerts.in_force',
      symbol,
      data: {
        id: 7,
        symbol,
        timeframe: 'D',
        direction: 'bullish',
        shape: '2D-2U',
        price: 101.5,
        triggered_at: '2024-11-26T15:30:00.000Z',
        cc: '2U',
      },
    },
  };
}

function simultaneousBreak(eventId: string, symbols: string[]): ChannelEvent {
  return {
    eventId,
    recordedAtMs: RECORDED_AT_MS,
    channel: 'alerts.simultaneous_breaks',
    symbols,
    message: {
      channel: 'alerts.simultaneous_breaks',
      data: {
        id: 3,
        timeframe: '60',
        direction: 'bearish',
        threshold: symbols.length as 2 | 3 | 4,
        symbols,
        triggered_at: '2024-11-26T15:30:00.000Z',
      },
    },
  };
}

const setup = (
  subscribed: [Subscriber, Subscription[]][],
  clients = new FakeClientConnections(),
  concurrency = 8,
) => fanOutPorts(subscribed, { clients, nowMs: NOW_MS, concurrency });

describe('fanOut', () => {
  it('pushes each event message to every subscriber of its channel and symbol', async () => {
    const ports = await setup([
      [subscriber('c1'), [{ channel: 'quotes', symbol: 'AAPL' }]],
      [
        subscriber('c2'),
        [
          { channel: 'quotes', symbol: 'AAPL' },
          { channel: 'quotes', symbol: 'MSFT' },
        ],
      ],
      [subscriber('c3'), [{ channel: 'states', symbol: 'AAPL' }]],
    ]);
    const events = [quote('e1', 'AAPL'), quote('e2', 'MSFT')];

    const outcome = await fanOut(events, ports);

    expect(outcome).toEqual({
      failed: [],
      sent: 3,
      frames: 3,
      gone: 0,
      closed: 0,
      withheld: 0,
      usageUnrecorded: 0,
      errors: [],
    });
    expect(ports.clients.sentTo('c1')).toEqual([events[0]?.message]);
    expect(ports.clients.sentTo('c2')).toEqual([events[0]?.message, events[1]?.message]);
    expect(ports.clients.sentTo('c3')).toEqual([]);
  });

  it('sends one message per connection when its wildcard and symbol subscriptions both match', async () => {
    const ports = await setup([
      [
        subscriber('c1'),
        [
          { channel: 'alerts.in_force' },
          { channel: 'alerts.in_force', symbol: 'AAPL' },
          { channel: 'alerts.simultaneous_breaks' },
          { channel: 'alerts.simultaneous_breaks', symbol: 'ES1!' },
          { channel: 'alerts.simultaneous_breaks', symbol: 'NQ1!' },
        ],
      ],
    ]);
    const events = [inForce('e1', 'AAPL'), simultaneousBreak('e2', ['ES1!', 'NQ1!'])];

    const outcome = await fanOut(events, ports);

    expect(outcome.sent).toBe(2);
    expect(ports.clients.sentTo('c1')).toEqual(events.map((event) => event.message));
    expect(ports.usage.rows).toHaveLength(2);
  });

  it('reaches wildcard subscribers of an alert channel but never of quotes or states', async () => {
    const ports = await setup([
      [subscriber('wild'), [{ channel: 'alerts.in_force' }, { channel: 'alerts.simultaneous_breaks' }]],
      [subscriber('msft'), [{ channel: 'alerts.in_force', symbol: 'MSFT' }]],
      [subscriber('nq'), [{ channel: 'alerts.simultaneous_breaks', symbol: 'NQ1!' }]],
    ]);
    const events = [inForce('e1', 'AAPL'), simultaneousBreak('e2', ['ES1!', 'NQ1!']), quote('e3', 'AAPL')];

    await fanOut(events, ports);

    expect(ports.clients.sentTo('wild')).toEqual([events[0]?.message, events[1]?.message]);
    expect(ports.clients.sentTo('msft')).toEqual([]);
    expect(ports.clients.sentTo('nq')).toEqual([events[1]?.message]);
  });

  it('writes one usage row per pushed message with the account, key, channel, symbol, time and message id', async () => {
    const ports = await setup([
      [
        subscriber('c1', 'acme'),
        [{ channel: 'quotes', symbol: 'AAPL' }, { channel: 'alerts.simultaneous_breaks' }],
      ],
      [subscriber('c2', 'globex'), [{ channel: 'quotes', symbol: 'AAPL' }]],
    ]);

    await fanOut([quote('ev-1', 'AAPL'), simultaneousBreak('ev-2', ['ES1!', 'NQ1!'])], ports);

    const byKey = (row: { accountId: string; messageId: string }) => `${row.accountId} ${row.messageId}`;
    expect([...ports.usage.rows].sort((a, b) => byKey(a).localeCompare(byKey(b)))).toEqual([
      {
        accountId: 'acme',
        keyId: 'key-c1',
        channel: 'quotes',
        symbol: 'AAPL',
        time: '2024-11-26T15:30:01.500Z',
        messageId: '2024-11-26T15:30:00.000Z#ev-1',
      },
      {
        accountId: 'acme',
        keyId: 'key-c1',
        channel: 'alerts.simultaneous_breaks',
        time: '2024-11-26T15:30:01.500Z',
        messageId: '2024-11-26T15:30:00.000Z#ev-2',
      },
      {
        accountId: 'globex',
        keyId: 'key-c2',
        channel: 'quotes',
        symbol: 'AAPL',
        time: '2024-11-26T15:30:01.500Z',
        messageId: '2024-11-26T15:30:00.000Z#ev-1',
      },
    ]);
  });

  it('cleans up a gone connection, does not bill it and does not fail the event', async () => {
    const clients = new FakeClientConnections({ gone: ['c1'] });
    const ports = await setup(
      [
        [subscriber('c1'), [{ channel: 'quotes', symbol: 'AAPL' }, { channel: 'alerts.in_force' }]],
        [subscriber('c2'), [{ channel: 'quotes', symbol: 'AAPL' }]],
      ],
      clients,
    );

    const outcome = await fanOut([quote('e1', 'AAPL'), quote('e2', 'AAPL')], ports);

    expect(outcome).toEqual({
      failed: [],
      sent: 2,
      frames: 2,
      gone: 1,
      closed: 0,
      withheld: 0,
      usageUnrecorded: 0,
      errors: [],
    });
    expect(ports.subscriptions.topicsOf('c1')).toEqual([]);
    expect(await ports.connections.get('acct-c1')).toBeUndefined();
    expect(ports.subscriptions.topicsOf('c2')).toEqual(['quotes#AAPL']);
    expect(ports.usage.rows.map(({ accountId }) => accountId)).toEqual(['acct-c2', 'acct-c2']);
  });

  it('posts to a gone connection once in a batch', async () => {
    const clients = new FakeClientConnections({ gone: ['c1'] });
    const send = vi.spyOn(clients, 'send');
    const ports = await setup([[subscriber('c1'), [{ channel: 'quotes', symbol: 'AAPL' }]]], clients);

    await fanOut([quote('e1', 'AAPL'), quote('e2', 'AAPL'), quote('e3', 'AAPL')], ports);

    expect(send).toHaveBeenCalledTimes(1);
  });

  it('keeps the account row of a gone connection when the row names its successor', async () => {
    const clients = new FakeClientConnections({ gone: ['old'] });
    const ports = await setup(
      [[subscriber('old', 'acme'), [{ channel: 'quotes', symbol: 'AAPL' }]]],
      clients,
    );
    const successor = connectionRecord({ accountId: 'acme', connectionId: 'new' });
    await ports.connections.claim(successor);

    await fanOut([quote('e1', 'AAPL')], ports);

    expect(await ports.connections.get('acme')).toEqual(successor);
    expect(ports.subscriptions.topicsOf('old')).toEqual([]);
  });

  it('fails an event whose send throws, and every later event of the same symbols, while other symbols succeed', async () => {
    const clients = new FakeClientConnections({ failing: ['broken'] });
    const ports = await setup(
      [
        [subscriber('broken'), [{ channel: 'quotes', symbol: 'AAPL' }]],
        [
          subscriber('ok'),
          [
            { channel: 'quotes', symbol: 'AAPL' },
            { channel: 'quotes', symbol: 'MSFT' },
          ],
        ],
      ],
      clients,
    );
    const events = [
      quote('e0', 'MSFT', 1),
      quote('e1', 'AAPL', 1),
      quote('e2', 'MSFT', 2),
      quote('e3', 'AAPL', 2),
      quote('e4', 'AAPL', 3),
      quote('e5', 'MSFT', 3),
    ];

    const outcome = await fanOut(events, ports);

    expect(outcome.failed).toEqual([1, 3, 4]);
    expect(ports.clients.sentTo('ok')).toEqual([
      events[0]?.message,
      events[1]?.message,
      events[2]?.message,
      events[5]?.message,
    ]);
    expect(ports.subscriptions.topicsOf('broken')).toEqual(['quotes#AAPL']);
  });

  it('fails the events whose usage rows the sink could not record, and every later event of their symbols', async () => {
    const ports = await setup([
      [
        subscriber('c1'),
        [
          { channel: 'quotes', symbol: 'AAPL' },
          { channel: 'quotes', symbol: 'MSFT' },
        ],
      ],
    ]);
    ports.usage.refuse = (row) => row.messageId.endsWith('#e1');
    const events = [
      quote('e0', 'MSFT', 1),
      quote('e1', 'AAPL', 1),
      quote('e2', 'AAPL', 2),
      quote('e3', 'MSFT', 2),
    ];

    const outcome = await fanOut(events, ports);

    expect(outcome.failed).toEqual([1, 2]);
    expect(outcome.usageUnrecorded).toBe(1);
    expect(outcome.errors).toEqual(['1 usage rows not recorded: ServiceUnavailableException: slow down']);
    expect(ports.usage.rows.map(({ messageId }) => messageId.split('#')[1]).sort()).toEqual([
      'e0',
      'e2',
      'e3',
    ]);
  });

  it('fails every event that pushed a message when the usage sink throws', async () => {
    const ports = await setup([[subscriber('c1'), [{ channel: 'quotes', symbol: 'AAPL' }]]]);
    ports.usage.record = async () => {
      throw new Error('network down');
    };

    const outcome = await fanOut([quote('e0', 'AAPL'), quote('e1', 'MSFT')], ports);

    expect(outcome.failed).toEqual([0]);
    expect(outcome.usageUnrecorded).toBe(1);
    expect(outcome.errors).toEqual(['1 usage rows not recorded: network down']);
  });

  it('serializes each event once: every connection it reaches gets the same frame', async () => {
    const clients = new FakeClientConnections();
    const connections = ['c1', 'c2', 'c3'];
    const ports = await setup(
      connections.map((id) => [subscriber(id), [{ channel: 'quotes', symbol: 'AAPL' }]]),
      clients,
    );
    const events = [quote('e1', 'AAPL', 1), quote('e2', 'AAPL', 2)];

    await fanOut(events, ports);

    for (const [index, event] of events.entries()) {
      const frames = new Set(connections.map((id) => clients.frames.get(id)?.[index]));
      expect(frames.size).toBe(1);
      expect([...frames][0]?.json).toBe(JSON.stringify(event.message));
    }
  });

  it('sends the events of one symbol in their order, each after the previous one was delivered', async () => {
    const order: string[] = [];
    const clients = new FakeClientConnections({
      beforeSend: async (_connectionId, message) => {
        const { data } = message as { data: { price: number } };
        // Earlier events take longer: only waiting for them keeps the order.
        await new Promise((resolve) => setTimeout(resolve, 10 - data.price * 3));
        order.push(`${data.price}`);
      },
    });
    const ports = await setup([[subscriber('c1'), [{ channel: 'quotes', symbol: 'AAPL' }]]], clients);

    await fanOut([quote('e1', 'AAPL', 1), quote('e2', 'AAPL', 2), quote('e3', 'AAPL', 3)], ports);

    expect(order).toEqual(['1', '2', '3']);
  });

  it('looks up the subscribers of each distinct subscription once per batch', async () => {
    const ports = await setup([[subscriber('c1'), [{ channel: 'alerts.in_force' }]]]);
    const subscribersOf = vi.spyOn(ports.subscriptions, 'subscribersOf');

    await fanOut(
      [
        quote('e1', 'AAPL'),
        quote('e2', 'AAPL'),
        quote('e3', 'MSFT'),
        inForce('e4', 'AAPL'),
        inForce('e5', 'AAPL'),
        inForce('e6', 'MSFT'),
      ],
      ports,
    );

    const keys = subscribersOf.mock.calls.map(([{ channel, symbol }]) => `${channel}#${symbol ?? '*'}`);
    expect(keys.sort()).toEqual([
      'alerts.in_force#*',
      'alerts.in_force#AAPL',
      'alerts.in_force#MSFT',
      'quotes#AAPL',
      'quotes#MSFT',
    ]);
  });

  it('posts at most `concurrency` messages at once', async () => {
    const clients = new FakeClientConnections({
      beforeSend: () => new Promise((resolve) => setTimeout(resolve, 1)),
    });
    const subscribers = Array.from({ length: 20 }, (_, index) => subscriber(`c${index}`));
    const ports = await setup(
      subscribers.map((who) => [
        who,
        [
          { channel: 'quotes', symbol: 'AAPL' },
          { channel: 'quotes', symbol: 'MSFT' },
        ],
      ]),
      clients,
      3,
    );

    const outcome = await fanOut([quote('e1', 'AAPL'), quote('e2', 'MSFT'), quote('e3', 'TSLA')], ports);

    expect(outcome.sent).toBe(40);
    expect(clients.maxInFlight).toBe(3);
  });

  it('leaves no unhandled rejection when cleaning up a gone connection fails while other posts are under way', async () => {
    const clients = new FakeClientConnections({
      gone: ['gone'],
      beforeSend: (connectionId) =>
        new Promise((resolve) => setTimeout(resolve, connectionId === 'slow' ? 30 : 0)),
    });
    const ports = await setup(
      [
        [subscriber('gone'), [{ channel: 'quotes', symbol: 'AAPL' }]],
        [subscriber('slow'), [{ channel: 'quotes', symbol: 'MSFT' }]],
      ],
      clients,
    );
    vi.spyOn(ports.subscriptions, 'listOf').mockRejectedValue(new Error('DynamoDB unavailable'));
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);

    try {
      await fanOut([quote('e1', 'AAPL'), quote('e2', 'MSFT')], ports).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 10));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }

    expect(unhandled).toEqual([]);
  });

  it('records no usage and sends nothing when no one is subscribed', async () => {
    const ports = await setup([]);

    const outcome = await fanOut([quote('e1', 'AAPL')], ports);

    expect(outcome).toEqual({
      failed: [],
      sent: 0,
      frames: 0,
      gone: 0,
      closed: 0,
      withheld: 0,
      usageUnrecorded: 0,
      errors: [],
    });
    expect(ports.usage.rows).toEqual([]);
  });
});

describe('fanOut when access was withdrawn since the handshake', () => {
  /** c1's key as `change` makes it; every other key allowed. */
  const withC1 =
    (change: (credential: Credential) => Credential | undefined): CredentialLookup =>
    async (keyId) => {
      const credential = await everyKeyAllowed(keyId);
      return keyId === 'key-c1' && credential ? change(credential) : credential;
    };
  const subscribedToAapl = (): [Subscriber, Subscription[]][] => [
    [subscriber('c1'), [{ channel: 'quotes', symbol: 'AAPL' }]],
    [subscriber('c2'), [{ channel: 'quotes', symbol: 'AAPL' }]],
  ];

  it.each([
    [
      'a revoked key',
      (c: Credential) => ({ ...c, key: { ...c.key, revokedAt: '2024-11-26T15:00:00Z' } }),
      4401,
    ],
    ['a deleted key', () => undefined, 4401],
    [
      'a lapsed entitlement',
      (c: Credential) => ({ ...c, account: c.account && { ...c.account, entitlement: 'inactive' as const } }),
      4403,
    ],
    [
      'ws:connect removed',
      (c: Credential) => ({
        ...c,
        key: { ...c.key, scopes: c.key.scopes.filter((s) => s !== 'ws:connect') },
      }),
      4403,
    ],
  ])(
    'closes the connection of %s with %d, pushes it nothing and bills nothing',
    async (_case, change, code) => {
      const clients = new FakeClientConnections();
      const ports = await fanOutPorts(subscribedToAapl(), {
        clients,
        nowMs: NOW_MS,
        credentials: withC1(change as (credential: Credential) => Credential | undefined),
      });

      const outcome = await fanOut([quote('e1', 'AAPL'), quote('e2', 'AAPL')], ports);

      expect(outcome).toEqual({
        failed: [],
        sent: 2,
        frames: 2,
        gone: 0,
        closed: 1,
        withheld: 0,
        usageUnrecorded: 0,
        errors: [],
      });
      expect(clients.sentTo('c1')).toEqual([]);
      expect(clients.closes).toEqual([{ connectionId: 'c1', code }]);
      expect(ports.subscriptions.topicsOf('c1')).toEqual([]);
      expect(await ports.connections.get('acct-c1')).toBeUndefined();
      expect(ports.usage.rows.map(({ accountId }) => accountId)).toEqual(['acct-c2', 'acct-c2']);
    },
  );

  it('withholds a channel whose scope the key lost, keeping the connection and its other channels', async () => {
    const clients = new FakeClientConnections();
    const ports = await fanOutPorts(
      [[subscriber('c1'), [{ channel: 'quotes', symbol: 'AAPL' }, { channel: 'alerts.in_force' }]]],
      {
        clients,
        nowMs: NOW_MS,
        credentials: withC1((c) => ({
          ...c,
          key: { ...c.key, scopes: c.key.scopes.filter((s) => s !== 'prices:read') },
        })),
      },
    );

    const outcome = await fanOut([quote('e1', 'AAPL'), inForce('e2', 'AAPL')], ports);

    expect(outcome).toEqual({
      failed: [],
      sent: 1,
      frames: 1,
      gone: 0,
      closed: 0,
      withheld: 1,
      usageUnrecorded: 0,
      errors: [],
    });
    expect(clients.sentTo('c1')).toEqual([inForce('e2', 'AAPL').message]);
    expect(clients.closes).toEqual([]);
    expect(ports.usage.rows.map(({ channel }) => channel)).toEqual(['alerts.in_force']);
  });

  it('reads each key once per batch', async () => {
    const lookup = vi.fn(credentialsFrom(everyKeyAllowed));
    const ports = await fanOutPorts(subscribedToAapl(), { nowMs: NOW_MS, credentialsBatch: lookup });
    await fanOut([quote('e1', 'AAPL'), quote('e2', 'AAPL'), quote('e3', 'AAPL')], ports);
    expect(lookup.mock.calls.flatMap(([keyIds]) => keyIds).sort()).toEqual(['key-c1', 'key-c2']);
  });

  it("asks for the keys of an event's subscribers in one call, not one per subscriber", async () => {
    const lookup = vi.fn(credentialsFrom(everyKeyAllowed));
    const ports = await fanOutPorts(
      ['c1', 'c2', 'c3', 'c4'].map((id) => [subscriber(id), [{ channel: 'quotes', symbol: 'AAPL' }]]),
      { nowMs: NOW_MS, credentialsBatch: lookup, concurrency: 2 },
    );

    const outcome = await fanOut([quote('e1', 'AAPL'), quote('e2', 'AAPL')], ports);

    expect(outcome.sent).toBe(8);
    expect(lookup).toHaveBeenCalledTimes(1);
    expect([...(lookup.mock.calls[0]?.[0] ?? [])].sort()).toEqual(['key-c1', 'key-c2', 'key-c3', 'key-c4']);
  });

  it('fails the event, and the later ones of its symbol, when the keys cannot be read', async () => {
    const ports = await fanOutPorts(subscribedToAapl(), {
      nowMs: NOW_MS,
      credentialsBatch: async () => {
        throw new Error('throttled');
      },
    });

    const outcome = await fanOut([quote('e1', 'AAPL'), quote('e2', 'AAPL')], ports);

    expect(outcome.failed).toEqual([0, 1]);
    expect(outcome.sent).toBe(0);
    expect(outcome.errors).toContain('throttled');
    expect(ports.usage.rows).toEqual([]);
  });
});

describe('fanOut to connections that take their quotes batched', () => {
  const batchedQuotes = (...symbols: string[]): Subscription[] =>
    symbols.map((symbol) => ({ channel: 'quotes', symbol, batch: true }));
  const batchOf = (...events: ChannelEvent[]) => ({
    channel: 'quotes',
    data: { items: events.map(({ message }) => message.data) },
  });

  it('posts one frame per connection with its quotes in order, and still one usage row per quote', async () => {
    const ports = await setup([
      [subscriber('batched'), batchedQuotes('AAPL', 'MSFT', 'TSLA')],
      [
        subscriber('single'),
        [
          { channel: 'quotes', symbol: 'AAPL' },
          { channel: 'quotes', symbol: 'MSFT' },
        ],
      ],
    ]);
    const events = [quote('e1', 'MSFT', 410), quote('e2', 'AAPL', 230), quote('e3', 'NVDA', 140)];

    const outcome = await fanOut(events, ports);

    expect(outcome).toMatchObject({ failed: [], sent: 4, frames: 3, gone: 0, errors: [] });
    expect(ports.clients.sentTo('batched')).toEqual([
      batchOf(events[0] as ChannelEvent, events[1] as ChannelEvent),
    ]);
    expect(ports.clients.sentTo('single')).toEqual([events[0]?.message, events[1]?.message]);
    const rowsOf = (accountId: string) =>
      ports.usage.rows
        .filter((row) => row.accountId === accountId)
        .map(({ symbol, messageId }) => [symbol, messageId]);
    // The same message ids as single frames: a quote is billed once per connection, however it was framed.
    expect(rowsOf('acct-batched')).toEqual(rowsOf('acct-single'));
    expect(rowsOf('acct-batched')).toHaveLength(2);
  });

  it('frames the batched and the single subscriptions of one connection apart, and never batches alerts', async () => {
    const ports = await setup([
      [
        subscriber('c1'),
        [...batchedQuotes('AAPL'), { channel: 'quotes', symbol: 'MSFT' }, { channel: 'alerts.in_force' }],
      ],
    ]);
    const events = [quote('e1', 'AAPL'), quote('e2', 'MSFT'), inForce('e3', 'AAPL')];

    const outcome = await fanOut(events, ports);

    expect(outcome).toMatchObject({ sent: 3, frames: 3 });
    expect(ports.clients.sentTo('c1')).toHaveLength(3);
    expect(ports.clients.sentTo('c1')).toEqual(
      expect.arrayContaining([batchOf(events[0] as ChannelEvent), events[1]?.message, events[2]?.message]),
    );
  });

  it('fails every quote of a batched frame whose post failed, and bills none of them', async () => {
    const ports = await setup(
      [
        [subscriber('broken'), batchedQuotes('AAPL', 'MSFT')],
        [subscriber('fine'), batchedQuotes('AAPL')],
      ],
      new FakeClientConnections({ failing: ['broken'] }),
    );

    const outcome = await fanOut([quote('e1', 'AAPL'), quote('e2', 'MSFT')], ports);

    expect(outcome).toMatchObject({ failed: [0, 1], sent: 1, frames: 1 });
    expect(outcome.errors).toEqual(['posting to broken failed']);
    expect(ports.usage.rows.map(({ accountId }) => accountId)).toEqual(['acct-fine']);
  });

  it('cleans up a batched connection found gone once, and bills it nothing', async () => {
    const ports = await setup(
      [[subscriber('gone'), batchedQuotes('AAPL', 'MSFT')]],
      new FakeClientConnections({ gone: ['gone'] }),
    );

    const outcome = await fanOut([quote('e1', 'AAPL'), quote('e2', 'MSFT')], ports);

    expect(outcome).toMatchObject({ failed: [], sent: 0, frames: 0, gone: 1 });
    expect(ports.subscriptions.topicsOf('gone')).toEqual([]);
    expect(ports.usage.rows).toEqual([]);
  });

  it('closes a batched connection whose key was revoked, and withholds quotes from a key without prices:read', async () => {
    const revoked: CredentialLookup = async (keyId) => {
      const credential = await everyKeyAllowed(keyId);
      if (!credential) return credential;
      if (keyId === 'key-revoked')
        return { ...credential, key: { ...credential.key, revokedAt: '2024-11-26T15:00:00Z' } };
      if (keyId === 'key-unscoped') {
        return {
          ...credential,
          key: { ...credential.key, scopes: credential.key.scopes.filter((s) => s !== 'prices:read') },
        };
      }
      return credential;
    };
    const clients = new FakeClientConnections();
    const ports = await fanOutPorts(
      [
        [subscriber('revoked'), batchedQuotes('AAPL', 'MSFT')],
        [subscriber('unscoped'), batchedQuotes('AAPL', 'MSFT')],
      ],
      { clients, nowMs: NOW_MS, credentials: revoked },
    );

    const outcome = await fanOut([quote('e1', 'AAPL'), quote('e2', 'MSFT')], ports);

    expect(outcome).toMatchObject({ failed: [], sent: 0, frames: 0, closed: 1, withheld: 2 });
    expect(clients.closes).toEqual([{ connectionId: 'revoked', code: 4401 }]);
    expect(clients.sentTo('unscoped')).toEqual([]);
    expect(ports.usage.rows).toEqual([]);
  });
});
