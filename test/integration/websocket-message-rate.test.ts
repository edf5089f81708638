import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_MESSAGE_RATE, CLOSE_CODES, CLOSE_REASONS } from '#contracts/websocket';
import { createKey } from '#scripts/lib/key-administration';
import { startTestStack, type TestStack } from '../support/local-stack.ts';
import { TestWebSocketClient } from '../support/ws-client.ts';

/**
 * The per-connection message rate (docs/websocket.md#limits) through the local WebSocket gateway, the
 * `$default` handler and the DynamoDB counter on dynalite: a client sending pings as fast as it can gets its
 * allowance of pongs, then a few `rate_limit_exceeded` errors, then no answer, and far over it a close with
 * 4429.
 */
let local: TestStack;
beforeAll(async () => {
  local = await startTestStack();
});
afterAll(() => local?.stop());

/**
 * Waits, when less than half of the current message window is left on the stack's clock (real time here),
 * for the next one to begin: a burst that a window's turn split after its allowance would be answered whole.
 */
async function withHalfAWindowAhead(): Promise<void> {
  const windowMs = CLIENT_MESSAGE_RATE.windowSeconds * 1000;
  const leftMs = windowMs - (local.stack.nowMs() % windowMs);
  if (leftMs < windowMs / 2) await new Promise((resolve) => setTimeout(resolve, leftMs));
}

describe('one connection flooding pings', () => {
  it('gets its allowance answered and the rest refused, in order, and stays connected', async () => {
    const { rawKey } = await createKey(
      { accountId: 'flood', label: 'rate', scopes: ['ws:connect'] },
      local.stack.keyAdministration,
    );
    const client = TestWebSocketClient.connect(local.stack.wsUrl, { 'X-API-Key': rawKey });
    await client.opened();
    const sent = CLIENT_MESSAGE_RATE.messages + 30;
    await withHalfAWindowAhead();
    for (let id = 1; id <= sent; id++) client.send({ op: 'ping', id });
    // Messages are handled one after another, in order: the allowance's pongs come before the first refusal.
    await client.next((message) => message.op === 'error', { timeoutMs: 20_000 });
    const pongs = client.messages.filter((message) => message.op === 'pong');
    const refused = client.messages.filter(
      (message) => (message.error as { code?: string } | undefined)?.code === 'rate_limit_exceeded',
    );
    // A window may turn during the burst: at least the allowance, never more than two windows' worth.
    expect(pongs.length).toBeGreaterThanOrEqual(CLIENT_MESSAGE_RATE.messages);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.length).toBeLessThanOrEqual(2 * CLIENT_MESSAGE_RATE.answeredRefusals);
    expect(client.socket.readyState).toBe(client.socket.OPEN);
    client.close();
  }, 60_000);

  it('is closed with 4429 once it keeps sending far over its allowance, past a few answered refusals', async () => {
    const { rawKey } = await createKey(
      { accountId: 'flood-on', label: 'rate', scopes: ['ws:connect'] },
      local.stack.keyAdministration,
    );
    const client = TestWebSocketClient.connect(local.stack.wsUrl, { 'X-API-Key': rawKey });
    await client.opened();
    const callsBefore = await local.stack.dynamoRequestCount();
    // Enough that, however a window boundary splits the burst, one window holds closeAt messages.
    const sent = 2 * CLIENT_MESSAGE_RATE.closeAt + 10;
    for (let id = 1; id <= sent; id++) client.send({ op: 'ping', id });
    const closed = await client.closed;
    // Each admitted message costs a few DynamoDB calls (its count, the key and account through the
    // authorizer's cache, here off, the connection's ownership): at most two windows' allowance of them,
    // whatever the connection sent, and nothing for what it sent beyond.
    const calls = (await local.stack.dynamoRequestCount()) - callsBefore;
    expect(calls).toBeLessThan(2 * CLIENT_MESSAGE_RATE.messages * 4 + 20);
    expect(closed.code).toBe(CLOSE_CODES.messageRateExceeded);
    expect(closed.reason).toBe(CLOSE_REASONS[CLOSE_CODES.messageRateExceeded]);
    const refused = client.messages.filter((message) => message.op === 'error');
    expect(refused.length).toBeLessThanOrEqual(2 * CLIENT_MESSAGE_RATE.answeredRefusals);
    expect(client.messages.length).toBeLessThan(sent);
  }, 60_000);
});
