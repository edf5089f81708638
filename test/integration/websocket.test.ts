import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '#contracts/scopes';
import { CLOSE_CODES } from '#contracts/websocket';
import { encodeTradeRecord } from '#domain/market-data/trade-records';
import { Frame, frameOf } from '#domain/streaming/messages';
import { createKey, revokeKey, setEntitlement } from '#scripts/lib/key-administration';
import { InProcessConnections } from '#scripts/local/ws-gateway';
import { startTestStack, type TestStack } from '../support/local-stack.ts';
import { TestWebSocketClient } from '../support/ws-client.ts';

let local: TestStack;
const clients: TestWebSocketClient[] = [];

/** Friday 2024-11-22, 11:00 New York: trades inside the session. */
const SESSION_START_MS = Date.parse('2024-11-22T16:00:00Z');

beforeAll(async () => {
  local = await startTestStack({ clock: { start: new Date(SESSION_START_MS), speed: 1 } });
});
afterAll(async () => {
  for (const client of clients) client.close();
  await local.stop();
});

let accounts = 0;
const keyWith = async (scopes: Scope[], accountId = `ws-account-${++accounts}`) =>
  (await createKey({ accountId, label: 'ws test', scopes }, local.stack.keyAdministration)).rawKey;

function connect(headers: Record<string, string>, url = local.stack.wsUrl): TestWebSocketClient {
  const client = TestWebSocketClient.connect(url, headers);
  clients.push(client);
  return client;
}

const ALL_SCOPES: Scope[] = ['ws:connect', 'prices:read', 'states:read', 'alerts:read'];

describe('WebSocket handshake', () => {
  it.each([
    ['no key', {}],
    ['an empty X-API-Key', { 'X-API-Key': '' }],
    ['a malformed key', { Authorization: 'Bearer hello' }],
    ['a well-formed unknown key', { 'X-API-Key': `mda_abcdefghijkl_${'A'.repeat(43)}` }],
  ])('closes with 4401 before any message for %s', async (_case, headers) => {
    const client = connect(headers);
    const closed = await client.closed;
    expect(closed).toEqual({
      code: CLOSE_CODES.noValidKey,
      reason: 'no valid API key in handshake',
      messagesBefore: 0,
    });
  });

  it('closes with 4403 before any message for a key without ws:connect', async () => {
    const client = connect({ 'X-API-Key': await keyWith(['prices:read']) });
    expect(await client.closed).toMatchObject({ code: CLOSE_CODES.forbidden, messagesBefore: 0 });
  });

  it('closes with 4403 when the account has no active subscription', async () => {
    const key = await keyWith(ALL_SCOPES, 'ws-lapsed');
    await setEntitlement({ accountId: 'ws-lapsed', status: 'inactive' }, local.stack.keyAdministration);
    const client = connect({ Authorization: `Bearer ${key}` });
    expect(await client.closed).toMatchObject({ code: CLOSE_CODES.forbidden, messagesBefore: 0 });
  });

  it('accepts the key in either header and answers ping with pong', async () => {
    const key = await keyWith(['ws:connect']);
    const headerSets: Record<string, string>[] = [{ 'X-API-Key': key }, { Authorization: `Bearer ${key}` }];
    for (const headers of headerSets) {
      const client = connect(headers);
      await client.opened();
      expect(await client.request({ op: 'ping', id: 7 }, 'pong')).toEqual({ op: 'pong', id: 7 });
      client.close();
      await client.closed;
    }
  });

  it('answers another path with 404', async () => {
    const client = connect({ 'X-API-Key': local.stack.demoKey }, local.stack.wsUrl.replace('/v1', '/v2'));
    await expect(client.opened()).rejects.toThrow(/404/);
  });
});

describe('WebSocket operations', () => {
  it('subscribes with upper-cased symbols and reports unknown ones', async () => {
    const client = connect({ 'X-API-Key': await keyWith(ALL_SCOPES) });
    await client.opened();
    const reply = await client.request(
      { op: 'subscribe', topics: [{ channel: 'quotes', symbols: ['aapl', 'AAPL', 'nope', 'es1!'] }] },
      'subscribed',
    );
    expect(reply).toEqual({
      op: 'subscribed',
      topics: [{ channel: 'quotes', symbols: ['AAPL', 'ES1!'], unknown_symbols: ['NOPE'] }],
    });
  });

  it('refuses a topic whose scope the key lacks and still subscribes the others', async () => {
    const client = connect({ 'X-API-Key': await keyWith(['ws:connect', 'prices:read']) });
    await client.opened();
    const from = client.messages.length;
    client.send({
      op: 'subscribe',
      id: 'a',
      topics: [
        { channel: 'states', symbols: ['AAPL'] },
        { channel: 'quotes', symbols: ['MSFT'] },
      ],
    });
    const subscribed = await client.next((message) => message.op === 'subscribed', { from });
    expect(client.messages.slice(from)).toEqual([
      {
        op: 'error',
        id: 'a',
        error: { code: 'missing_scope', message: 'missing scope' },
        topic: { channel: 'states', symbols: ['AAPL'] },
      },
      subscribed,
    ]);
    expect(subscribed).toEqual({
      op: 'subscribed',
      id: 'a',
      topics: [{ channel: 'quotes', symbols: ['MSFT'], unknown_symbols: [] }],
    });
  });

  it('answers bad JSON and an unknown op with an error and keeps the connection', async () => {
    const client = connect({ 'X-API-Key': await keyWith(ALL_SCOPES) });
    await client.opened();
    expect(await client.request('{not json', 'error')).toMatchObject({ error: { code: 'invalid_message' } });
    expect(await client.request({ op: 'dance' }, 'error')).toMatchObject({ error: { code: 'unknown_op' } });
    expect(await client.request({ op: 'ping' }, 'pong')).toEqual({ op: 'pong' });
  });

  it('stops pushing a symbol once unsubscribed', async () => {
    const client = connect({ 'X-API-Key': await keyWith(ALL_SCOPES) });
    await client.opened();
    await client.request({ op: 'subscribe', topics: [{ channel: 'quotes', symbols: ['KO'] }] }, 'subscribed');
    await putTrades([{ symbol: 'KO', price: 60.1 }]);
    await client.next((message) => message.channel === 'quotes' && message.symbol === 'KO');
    const reply = await client.request(
      { op: 'unsubscribe', topics: [{ channel: 'quotes', symbols: ['ko'] }] },
      'unsubscribed',
    );
    expect(reply).toEqual({ op: 'unsubscribed', topics: [{ channel: 'quotes', symbols: ['KO'] }] });
    const from = client.messages.length;
    await putTrades([{ symbol: 'KO', price: 60.2 }]);
    await local.stack.changes.flush();
    expect(await client.request({ op: 'ping' }, 'pong')).toEqual({ op: 'pong' });
    expect(client.messages.slice(from).filter((message) => message.channel === 'quotes')).toEqual([]);
  });
});

describe('the local @connections', () => {
  it("takes the fan-out's pushes in-process and the replies over HTTP through the SDK", async () => {
    const gateway = local.stack.webSocket;
    const handleManagement = gateway.handleManagement.bind(gateway);
    const postedOverHttp: string[] = [];
    gateway.handleManagement = async (request) => {
      if (request.method === 'POST') postedOverHttp.push(request.url ?? '');
      return handleManagement(request);
    };
    try {
      const client = connect({ 'X-API-Key': await keyWith(ALL_SCOPES) });
      await client.opened();
      await client.request(
        { op: 'subscribe', topics: [{ channel: 'quotes', symbols: ['PEP'] }] },
        'subscribed',
      );
      expect(postedOverHttp).toHaveLength(1);
      const postedBefore = gateway.posted;

      await putTrades([{ symbol: 'PEP', price: 160.5 }]);
      const quote = await client.next((message) => message.channel === 'quotes' && message.symbol === 'PEP');

      expect(quote).toMatchObject({
        channel: 'quotes',
        symbol: 'PEP',
        data: { symbol: 'PEP', price: 160.5 },
      });
      expect(gateway.posted - postedBefore).toBe(1);
      expect(postedOverHttp).toHaveLength(1);
    } finally {
      gateway.handleManagement = handleManagement;
    }
  });

  it('answers the in-process post as the HTTP one: gone for an unknown connection, a message over 128 KB refused', async () => {
    const key = await keyWith(ALL_SCOPES);
    const before = new Set(local.stack.webSocket.openConnectionIds());
    const client = connect({ 'X-API-Key': key });
    await client.opened();
    const connectionId = local.stack.webSocket.openConnectionIds().find((id) => !before.has(id));
    const connections = new InProcessConnections(() => local.stack.webSocket);

    expect(await connections.send('no-such-connection', frameOf({ op: 'heartbeat' }))).toBe('gone');
    await expect(
      connections.send(connectionId ?? '', new Frame(`"${'x'.repeat(128 * 1024)}"`)),
    ).rejects.toThrow('PayloadTooLargeException');
    expect(await connections.send(connectionId ?? '', frameOf({ op: 'heartbeat' }))).toBe('sent');
    await client.next((message) => message.op === 'heartbeat');
  });
});

describe('access withdrawn on an open connection', () => {
  it('closes a connection whose key was revoked at its next push, which it does not get', async () => {
    const created = await createKey(
      { accountId: 'ws-revoked', label: 'ws test', scopes: ALL_SCOPES },
      local.stack.keyAdministration,
    );
    const client = connect({ 'X-API-Key': created.rawKey });
    await client.opened();
    await client.request({ op: 'subscribe', topics: [{ channel: 'quotes', symbols: ['MO'] }] }, 'subscribed');
    await putTrades([{ symbol: 'MO', price: 50.1 }]);
    await client.next((message) => message.channel === 'quotes' && message.symbol === 'MO');
    const quotesBefore = client.messages.filter((message) => message.channel === 'quotes').length;

    await revokeKey(created.record.keyId, local.stack.keyAdministration);
    await putTrades([{ symbol: 'MO', price: 50.2 }]);
    await local.stack.changes.flush();

    expect((await client.closed).code).toBe(CLOSE_CODES.noValidKey);
    expect(client.messages.filter((message) => message.channel === 'quotes')).toHaveLength(quotesBefore);
  });
});

describe('one connection per account', () => {
  it('closes the older connection with 4409 when the account connects again', async () => {
    const key = await keyWith(ALL_SCOPES);
    const first = connect({ 'X-API-Key': key });
    await first.opened();
    await first.request({ op: 'subscribe', topics: [{ channel: 'quotes', symbols: ['PEP'] }] }, 'subscribed');
    const second = connect({ Authorization: `Bearer ${key}` });
    await second.opened();
    expect(await first.closed).toMatchObject({
      code: CLOSE_CODES.replaced,
      reason: 'connection replaced by a newer connection of the same account',
    });
    expect(await second.request({ op: 'ping' }, 'pong')).toEqual({ op: 'pong' });
  });

  it('leaves exactly one of two racing connections alive', async () => {
    const key = await keyWith(ALL_SCOPES);
    const racers = [connect({ 'X-API-Key': key }), connect({ 'X-API-Key': key })];
    const outcomes = await Promise.race([
      Promise.any(racers.map(async (racer, index) => ({ index, closed: await racer.closed }))),
      new Promise((resolve) => setTimeout(() => resolve(undefined), 5_000)),
    ]);
    expect(outcomes).toMatchObject({ closed: { code: CLOSE_CODES.replaced } });
    const survivor = racers[1 - (outcomes as { index: number }).index] as TestWebSocketClient;
    await survivor.opened();
    expect(await survivor.request({ op: 'ping' }, 'pong')).toEqual({ op: 'pong' });
  });
});

let tradesPut = 0;

/** Trades a second apart from the session's start, through the local trades stream, ingested on return. */
async function putTrades(trades: { symbol: string; price: number }[]): Promise<void> {
  local.stack.trades.put(
    trades.map((trade, index) => ({
      partitionKey: trade.symbol,
      data: encodeTradeRecord({
        symbol: trade.symbol,
        price: trade.price,
        size: 10,
        timestamp: SESSION_START_MS + 1000 * (tradesPut + index),
        tradeId: `ws-${tradesPut + index}`,
      }),
    })),
  );
  tradesPut += trades.length;
  await local.stack.trades.flush();
}
