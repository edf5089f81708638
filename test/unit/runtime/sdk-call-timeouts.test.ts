import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INGEST_WINDOWS } from '#contracts/ingestion';
import { Frame } from '#domain/streaming/messages';
import { clientConnectionsAt } from '#runtime/ports/client-connections';
import { SDK_CALL_TIMEOUTS } from '#runtime/sdk-clients';
import { holdingServer } from './holding-server.ts';

/** A server that takes connections and requests and never answers: a connection gone silent. */
const sockets: Socket[] = [];
const silent = createServer((socket) => {
  sockets.push(socket);
  socket.resume();
});
let endpoint: string;
const maxAttempts = process.env.AWS_MAX_ATTEMPTS;
beforeAll(async () => {
  silent.listen(0, '127.0.0.1');
  await once(silent, 'listening');
  endpoint = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
  // One attempt, so the test waits for one timeout, not the SDK's retries of it.
  process.env.AWS_MAX_ATTEMPTS = '1';
});
afterAll(() => {
  if (maxAttempts === undefined) delete process.env.AWS_MAX_ATTEMPTS;
  else process.env.AWS_MAX_ATTEMPTS = maxAttempts;
  for (const socket of sockets) socket.destroy();
  silent.close();
});

describe('the @connections clients’ sockets', () => {
  const posts = async (socketsPerHost: number | undefined, count: number) => {
    const server = await holdingServer();
    const connections = clientConnectionsAt(
      () => ({
        endpoint: server.url,
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      }),
      socketsPerHost,
    )();
    const sent = Array.from({ length: count }, (_, index) =>
      connections.send(`connection-${index}`, new Frame('{}')),
    );
    // Until the server holds all it will get at once: then answer everything, as often as more come.
    const most = await server.inFlight(sent, Math.min(count, socketsPerHost ?? 50), '');
    server.close();
    return most;
  };

  it('have the SDK’s 50 posts in flight at most by default', async () => {
    expect(await posts(undefined, 120)).toBe(50);
  });

  it('have a window’s posts in flight in a post worker’s (INGEST_WINDOWS.postConcurrency)', async () => {
    expect(INGEST_WINDOWS.postConcurrency).toBe(512);
    expect(await posts(INGEST_WINDOWS.postConcurrency, 120)).toBe(120);
  });
});

describe('the functions’ SDK clients (SDK_CALL_TIMEOUTS)', () => {
  it('fail a call on a connection that went silent once it has taken 10 s, instead of waiting for good', async () => {
    const connections = clientConnectionsAt(() => ({
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }))();
    const started = Date.now();

    await expect(connections.send('connection-1', new Frame('{}'))).rejects.toMatchObject({
      name: 'TimeoutError',
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(SDK_CALL_TIMEOUTS.requestTimeout - 100);
  }, 30_000);
});
