import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_MESSAGE_RATE } from '#contracts/websocket';
import { createKey } from '#scripts/lib/key-administration';
import { startTestStack, type TestStack } from '../support/local-stack.ts';
import { TestWebSocketClient } from '../support/ws-client.ts';

/**
 * The per-connection message rate (docs/websocket.md#limits) through the local WebSocket gateway, the
 * `$default` handler and the DynamoDB counter on dynalite: a client sending pings as fast as it can gets its
 * allowance of pongs, then `rate_limit_exceeded` errors, and the connection stays open.
 */
let local: TestStack;
beforeAll(async () => {
  local = await startTestStack();
});
afterAll(() => local?.stop());

describe('one connection flooding pings', () => {
  it('gets its allowance answered and the rest refused, in order, and stays connected', async () => {
    const { rawKey } = await createKey(
      { accountId: 'flood', label: 'rate', scopes: ['ws:connect'] },
      local.stack.keyAdministration,
    );
    const client = TestWebSocketClient.connect(local.stack.wsUrl, { 'X-API-Key': rawKey });
    await client.opened();
    const sent = CLIENT_MESSAGE_RATE.messages + 30;
    for (let id = 1; id <= sent; id++) client.send({ op: 'ping', id });
    for (let waited = 0; client.messages.length < sent && waited < 20_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const pongs = client.messages.filter((message) => message.op === 'pong');
    const refused = client.messages.filter(
      (message) => (message.error as { code?: string } | undefined)?.code === 'rate_limit_exceeded',
    );
    // A window may turn during the burst: at least the allowance, never more than two windows' worth.
    expect(pongs.length).toBeGreaterThanOrEqual(CLIENT_MESSAGE_RATE.messages);
    expect(pongs.length + refused.length).toBe(sent);
    expect(refused.length).toBeGreaterThan(0);
    client.send({ op: 'ping', id: 'still-open' });
    expect(client.socket.readyState).toBe(client.socket.OPEN);
    client.close();
  }, 60_000);
});
