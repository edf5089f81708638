import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalTradeSink } from '#scripts/lib/local-trade-sink';

const servers: ReturnType<typeof createServer>[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** A local stack's `/_local/records` that is full for the first `full` requests. */
async function recordsEndpoint(full: number) {
  const bodies: string[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      bodies.push(body);
      if (bodies.length <= full) {
        response.writeHead(503, { 'Retry-After': '0' }).end('{"error":{"code":"stream_full"}}');
      } else {
        response.writeHead(200).end('{}');
      }
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies };
}

describe('LocalTradeSink', () => {
  it('waits out a full stream (503 with Retry-After) and sends the same records again', async () => {
    const endpoint = await recordsEndpoint(2);
    await new LocalTradeSink(endpoint.origin).put([
      { symbol: 'SPY', price: 600, size: 1, timestamp: Date.parse('2024-11-26T15:00:00Z'), tradeId: 't1' },
    ]);
    expect(endpoint.bodies).toHaveLength(3);
    expect(new Set(endpoint.bodies).size).toBe(1);
  });
});
