import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '#scripts/lib/key-administration';
import { startTestStack, type TestStack } from '../support/local-stack.ts';
import { TestWebSocketClient } from '../support/ws-client.ts';

/**
 * No client frame may stop the local stack: a frame beyond the message size limit, a text frame that is not
 * UTF-8, or a frame with a reserved bit set closes that client's connection with the WebSocket protocol's
 * code (1009, 1007, 1002), and every other connection and the REST API go on. Before the fix, each of these
 * ended the whole process (`ws` emits an `error` on the server socket, and nothing listened).
 */
let local: TestStack;
let watcher: TestWebSocketClient;
const clients: TestWebSocketClient[] = [];

beforeAll(async () => {
  local = await startTestStack({ clock: { start: new Date('2024-11-22T16:00:00Z'), speed: 1 } });
  watcher = await connectWithKey('watcher');
});
afterAll(async () => {
  for (const client of clients) client.close();
  await local.stop();
});

async function connectWithKey(accountId: string): Promise<TestWebSocketClient> {
  const { rawKey } = await createKey(
    { accountId, label: 'bad frames', scopes: ['ws:connect', 'prices:read'] },
    local.stack.keyAdministration,
  );
  const client = TestWebSocketClient.connect(local.stack.wsUrl, { 'X-API-Key': rawKey });
  clients.push(client);
  await client.opened();
  return client;
}

/** A client-to-server frame written as raw bytes: masked, as the protocol requires of clients. */
function rawFrame(firstByte: number, payload: Buffer): Buffer {
  if (payload.length > 125) throw new Error('short frames only');
  const mask = randomBytes(4);
  const masked = Buffer.from(payload.map((byte, index) => byte ^ (mask[index % 4] as number)));
  return Buffer.concat([Buffer.from([firstByte, 0x80 | payload.length]), mask, masked]);
}

function writeRaw(client: TestWebSocketClient, frame: Buffer): void {
  (client.socket as unknown as { _socket: Socket })._socket.write(frame);
}

async function expectStackAlive(): Promise<void> {
  expect(await watcher.request({ op: 'ping', id: 1 }, 'pong')).toEqual({ op: 'pong', id: 1 });
  const status = await local.request('/api/market/v1/market-status', {
    headers: { 'X-API-Key': local.stack.demoKey },
  });
  expect(status.status).toBe(200);
}

describe('bad client frames', () => {
  it('closes a message over the size limit with 1009 and serves everyone else', async () => {
    const client = await connectWithKey('too-big');
    client.send(JSON.stringify({ op: 'ping', padding: 'x'.repeat(1024 * 1024) }));
    expect((await client.closed).code).toBe(1009);
    await expectStackAlive();
  });

  it('closes a text frame that is not UTF-8 with 1007 and serves everyone else', async () => {
    const client = await connectWithKey('not-utf8');
    writeRaw(client, rawFrame(0x81, Buffer.from([0xff, 0xfe, 0xfd])));
    expect((await client.closed).code).toBe(1007);
    await expectStackAlive();
  });

  it('closes a frame with a reserved bit set with 1002 and serves everyone else', async () => {
    const client = await connectWithKey('reserved-bit');
    writeRaw(client, rawFrame(0xc1, Buffer.from('{"op":"ping"}')));
    expect((await client.closed).code).toBe(1002);
    await expectStackAlive();
  });

  it('survives the same from a client with no key, before its 4401 close', async () => {
    const client = TestWebSocketClient.connect(local.stack.wsUrl);
    clients.push(client);
    await client.opened();
    writeRaw(client, rawFrame(0xc1, Buffer.from('x')));
    await client.closed;
    await expectStackAlive();
  });
});
