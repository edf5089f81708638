import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../support/local-stack.ts';
import { TestWebSocketClient } from '../support/ws-client.ts';

/**
 * The local stack's control plane (`/_local/*`, docs/architecture.md#the-local-control-plane)
 * over real HTTP: routed on the path its loopback rule checks, and refused to a forged Host or Origin.
 */
let local: TestStack;

beforeAll(async () => {
  local = await startTestStack();
});
afterAll(async () => {
  await local.stop();
});

/** A raw request: the path exactly as written (fetch would resolve `..` itself) and any Host or Origin. */
function raw(
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; text: string }> {
  const { port } = new URL(local.stack.restUrl);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: options.headers },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

const tradeRecords = (price: number) =>
  JSON.stringify({
    records: [
      {
        partitionKey: 'SPY',
        data: JSON.stringify({ symbol: 'SPY', price, size: 1, timestamp: '2024-11-26T15:00:00Z' }),
      },
    ],
  });

describe('routing on the path the loopback rule checks', () => {
  it('does not serve the dead-letter queue at /_local/sqs/../../x', async () => {
    const response = await raw('/_local/sqs/../../x', {
      method: 'POST',
      headers: { 'X-Amz-Target': 'AmazonSQS.GetQueueAttributes' },
      body: '{}',
    });
    expect(response.text).not.toContain('ApproximateNumberOfMessages');
    expect(response.status).toBe(404);
  });

  it('does not post to a connection at /_local/ws/../../x/@connections/<id>', async () => {
    const client = TestWebSocketClient.connect(local.stack.wsUrl, { 'X-API-Key': local.stack.demoKey });
    await client.opened();
    const [id] = local.stack.webSocket.openConnectionIds();
    // `/abcdefghi` is as long as `/_local/ws`: a handler that cut the management prefix off the resolved path
    // would find `/@connections/<id>` there.
    const response = await raw(`/_local/ws/../../abcdefghi/@connections/${encodeURIComponent(id ?? '')}`, {
      method: 'POST',
      body: JSON.stringify({ op: 'close', code: 4409, reason: 'forged' }),
    });
    expect(response.status).toBe(404);
    client.socket.close();
    expect((await client.closed).code).not.toBe(4409);
  });
});

describe('a forged Host or Origin', () => {
  it.each([
    ['a rebound Host', { Host: 'attacker.example' }],
    ['a cross-site Origin', { Origin: 'http://attacker.example', 'Content-Type': 'text/plain' }],
  ])('is refused on every control route: %s', async (_what, headers) => {
    for (const [method, path] of [
      ['POST', '/_local/records'],
      ['GET', '/_local/stream'],
      ['GET', '/_local/metrics'],
      ['GET', '/_local/usage?from=2024-01-01&to=2024-01-02'],
      ['GET', '/_local/demo-key'],
      ['POST', '/_local/sqs/000000000000/trade-dead-letters'],
      ['GET', '/_local/ws/@connections/abc'],
    ] as const) {
      const response = await raw(path, {
        method,
        headers,
        body: method === 'POST' ? tradeRecords(600) : undefined,
      });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(JSON.parse(response.text)).toEqual({ error: { code: 'not_found', message: 'not found' } });
    }
    const metrics = await raw('/_local/stream');
    expect(metrics.status).toBe(200);
  });

  it('leaves a program without Origin, and the stack own page, served', async () => {
    const port = new URL(local.stack.restUrl).port;
    for (const headers of [{}, { Origin: `http://127.0.0.1:${port}` }] as Record<string, string>[]) {
      const response = await raw('/_local/records', { method: 'POST', headers, body: tradeRecords(601) });
      expect(response.status).toBe(200);
    }
  });
});

describe('the local @connections API', () => {
  it('refuses a message over one WebSocket message (128 KB) with 413, leaving the connection open', async () => {
    const client = TestWebSocketClient.connect(local.stack.wsUrl, { 'X-API-Key': local.stack.demoKey });
    await client.opened();
    const [id] = local.stack.webSocket.openConnectionIds();
    const response = await raw(`/_local/ws/@connections/${encodeURIComponent(id ?? '')}`, {
      method: 'POST',
      body: JSON.stringify({ padding: 'x'.repeat(200 * 1024) }),
    });
    expect(response.status).toBe(413);
    expect(client.socket.readyState).toBe(client.socket.OPEN);
    client.socket.close();
    await client.closed;
  });
});
