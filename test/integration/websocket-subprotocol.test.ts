import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLOSE_CODES, WS_SUBPROTOCOL } from '#contracts/websocket';
import { startTestStack, type TestStack } from '../support/local-stack.ts';
import { TestWebSocketClient } from '../support/ws-client.ts';

/** The browser's handshake (docs/websocket.md#connecting-from-a-browser) against the local gateway. */
let local: TestStack;
const clients: TestWebSocketClient[] = [];

beforeAll(async () => {
  local = await startTestStack();
});
afterAll(async () => {
  for (const client of clients) client.close();
  await local.stop();
});

function connect(protocols: string[]): TestWebSocketClient {
  const client = TestWebSocketClient.connectWithSubprotocols(local.stack.wsUrl, protocols);
  clients.push(client);
  return client;
}

describe('WebSocket handshake with the key as a subprotocol', () => {
  it('accepts the key from a key. entry, selects market-data.v1 and serves subscriptions', async () => {
    const client = connect([WS_SUBPROTOCOL, `key.${local.stack.demoKey}`]);
    await client.opened();

    expect(client.socket.protocol).toBe(WS_SUBPROTOCOL);
    const reply = await client.request(
      { op: 'subscribe', topics: [{ channel: 'quotes', symbols: ['AAPL'] }] },
      'subscribed',
    );
    expect(reply).toMatchObject({ op: 'subscribed', topics: [{ channel: 'quotes', symbols: ['AAPL'] }] });
    client.close();
  });

  it('closes with 4401 before any message for an unknown key, having selected market-data.v1', async () => {
    const client = connect([WS_SUBPROTOCOL, `key.mda_abcdefghijkl_${'A'.repeat(43)}`]);
    await client.opened();

    expect(client.socket.protocol).toBe(WS_SUBPROTOCOL);
    expect(await client.closed).toMatchObject({ code: CLOSE_CODES.noValidKey, messagesBefore: 0 });
  });

  it('closes with 4401 when only market-data.v1 is offered, with no key', async () => {
    const client = connect([WS_SUBPROTOCOL]);
    expect(await client.closed).toMatchObject({ code: CLOSE_CODES.noValidKey, messagesBefore: 0 });
  });

  it('never selects the key entry: offered alone, the upgrade selects no subprotocol', async () => {
    const client = connect([`key.${local.stack.demoKey}`]);
    const failure = await client.opened().then(
      () => undefined,
      (error: Error) => error.message,
    );
    expect(failure).toMatch(/no subprotocol/i);
  });
});
