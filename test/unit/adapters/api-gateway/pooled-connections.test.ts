import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PooledClientConnections } from '#adapters/api-gateway/pooled-connections';
import { CALLBACK_URL_ENV } from '#contracts/websocket';
import { Frame } from '#domain/streaming/messages';

/** The post workers' entry as the consumer starts it, run here with tsx. */
const WORKER = new URL('../../../../functions/containers/quote-post-worker.ts', import.meta.url);
const TSX = { execArgv: ['--import', 'tsx'] };

/**
 * A stand-in of the `@connections` API: records each post's connection and body; a connection whose id starts
 * with `gone` is gone (410), one starting with `broken` fails (500).
 */
let server: Server;
const posted: { connectionId: string; body: string; method: string }[] = [];
beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const connectionId = decodeURIComponent(request.url?.split('/').at(-1) ?? '');
      posted.push({ connectionId, body, method: request.method ?? '' });
      const status = connectionId.startsWith('gone') ? 410 : connectionId.startsWith('broken') ? 500 : 200;
      const errorType = status === 410 ? 'GoneException' : 'InternalServerErrorException';
      response.writeHead(status, {
        'content-type': 'application/json',
        ...(status === 200 ? {} : { 'x-amzn-errortype': errorType }),
      });
      response.end(status === 410 ? '{"message":"gone"}' : status === 500 ? '{"message":"boom"}' : '');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
});
afterAll(() => {
  server.close();
});

function pool(size: number): PooledClientConnections {
  const { port } = server.address() as AddressInfo;
  // The workers read the callback URL from the environment they are started with, as on AWS.
  return new PooledClientConnections(WORKER, size, {
    ...TSX,
    env: {
      ...process.env,
      [CALLBACK_URL_ENV]: `http://127.0.0.1:${port}`,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      POWERTOOLS_TRACE_ENABLED: 'false',
    },
  });
}

describe('PooledClientConnections', () => {
  it('posts every frame once, whole, through its worker threads', async () => {
    const connections = pool(3);
    posted.length = 0;
    const frames = Array.from(
      { length: 30 },
      (_, index) => new Frame(JSON.stringify({ n: index, text: 'é' })),
    );

    const deliveries = await Promise.all(
      frames.map((frame, index) => connections.send(`conn-${index}`, frame)),
    );

    expect(deliveries).toEqual(frames.map(() => 'sent'));
    expect(posted.map(({ connectionId, body }) => [connectionId, body]).sort()).toEqual(
      frames.map((frame, index) => [`conn-${index}`, frame.json]).sort(),
    );
    await connections.stop();
  }, 30_000);

  it('answers gone for a gone connection, and fails a post that failed with its error’s name', async () => {
    const connections = pool(2);

    await expect(connections.send('gone-1', new Frame('{}'))).resolves.toBe('gone');
    await expect(connections.send('broken-1', new Frame('{}'))).rejects.toMatchObject({
      name: 'InternalServerErrorException',
    });
    await connections.stop();
  }, 30_000);

  it('closes a connection with the close control message, then deletes it', async () => {
    const connections = pool(1);
    posted.length = 0;

    await connections.close('conn-closed', 4401);

    expect(posted.map(({ method, connectionId }) => [method, connectionId])).toEqual([
      ['POST', 'conn-closed'],
      ['DELETE', 'conn-closed'],
    ]);
    expect(JSON.parse(posted[0]?.body ?? '{}')).toMatchObject({ op: 'close', code: 4401 });
    await connections.stop();
  }, 30_000);

  it('fails the posts of a worker that cannot start rather than holding them', async () => {
    // No callback URL: each worker fails at start, as a task without its settings would.
    const connections = new PooledClientConnections(WORKER, 1, {
      ...TSX,
      env: { ...process.env, [CALLBACK_URL_ENV]: undefined } as NodeJS.ProcessEnv,
    });

    await expect(connections.send('conn-1', new Frame('{}'))).rejects.toThrow();
    await connections.stop();
  }, 30_000);
});
