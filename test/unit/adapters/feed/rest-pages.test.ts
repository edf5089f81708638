import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { getPage, isSameOrigin, REST_RETRY, retryAfterMs } from '#adapters/feed/rest-pages';

/** A local REST server that answers each request with `answer` (or never, when it returns false). */
async function restServer(
  answer: (request: IncomingMessage) => { status: number; retryAfter?: string } | false,
) {
  const requests: string[] = [];
  const server: Server = createHttpServer((request, response) => {
    requests.push(request.url ?? '/');
    const reply = answer(request);
    if (reply === false) return; // holds the request open
    const headers = reply.retryAfter === undefined ? {} : { 'retry-after': reply.retryAfter };
    response.writeHead(reply.status, headers).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v3/trades/MSFT`, requests };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/** Waits as long as the provider asks (an hour here): only an abort can end the wait in a test's time. */
const patient = { ...REST_RETRY, maxRetryAfterMs: 3_600_000, requestTimeoutMs: 3_600_000 };

describe('REST pages', () => {
  it('reads Retry-After as delta-seconds or as an HTTP date', () => {
    const now = Date.parse('2024-05-15T14:00:00Z');
    expect(retryAfterMs('2', now)).toBe(2_000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
    expect(retryAfterMs('Wed, 15 May 2024 14:00:05 GMT', now)).toBe(5_000);
    expect(retryAfterMs('Wed, 15 May 2024 13:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });

  it('retries a network error a bounded number of times, then says why', async () => {
    // A port that was free a moment ago: the connection is refused.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const slept: number[] = [];
    const outcome = await getPage(
      `http://127.0.0.1:${port}/v3/trades/MSFT`,
      {},
      {
        ...REST_RETRY,
        attempts: 3,
        random: () => 1,
        sleep: async (ms) => void slept.push(ms),
      },
    );
    expect(outcome).toEqual({
      ok: false,
      reason: expect.stringMatching(/^request failed: .* \(3 attempts\)$/),
    });
    expect(slept).toEqual([500, 1_000]);
  });

  it('compares origins by scheme, host and port', () => {
    expect(isSameOrigin('https://api.massive.com/v3/trades/A?cursor=x', 'https://api.massive.com')).toBe(
      true,
    );
    expect(isSameOrigin('http://api.massive.com/v3/trades/A', 'https://api.massive.com')).toBe(false);
    expect(isSameOrigin('https://api.massive.com:8443/v3', 'https://api.massive.com')).toBe(false);
    expect(isSameOrigin('https://api.massive.com.evil.example/v3', 'https://api.massive.com')).toBe(false);
    expect(isSameOrigin('not a url', 'https://api.massive.com')).toBe(false);
  });

  describe('stopped by its AbortSignal', () => {
    it('ends a wait for a long Retry-After at once, saying it was stopped', async () => {
      const { url, requests } = await restServer(() => ({ status: 429, retryAfter: '3600' }));
      const stop = new AbortController();
      const page = getPage(url, {}, patient, stop.signal);
      await vi.waitFor(() => expect(requests).toHaveLength(1));
      stop.abort();
      expect(await page).toEqual({ ok: false, reason: 'stopped' });
      expect(requests).toHaveLength(1);
    });

    it('ends a request the provider does not answer', async () => {
      const { url, requests } = await restServer(() => false);
      const stop = new AbortController();
      const page = getPage(url, {}, patient, stop.signal);
      await vi.waitFor(() => expect(requests).toHaveLength(1));
      stop.abort();
      expect(await page).toEqual({ ok: false, reason: 'stopped' });
    });

    it('sends nothing once stopped', async () => {
      const { url, requests } = await restServer(() => ({ status: 200 }));
      expect(await getPage(url, {}, patient, AbortSignal.abort())).toEqual({ ok: false, reason: 'stopped' });
      expect(requests).toEqual([]);
    });

    it('passes the signal to the policy’s wait', async () => {
      const { url } = await restServer(() => ({ status: 503 }));
      const stop = new AbortController();
      const signals: (AbortSignal | undefined)[] = [];
      const outcome = await getPage(
        url,
        {},
        {
          ...patient,
          sleep: async (_ms, signal) => {
            signals.push(signal);
            stop.abort();
          },
        },
        stop.signal,
      );
      expect(signals).toEqual([stop.signal]);
      expect(outcome).toEqual({ ok: false, reason: 'stopped' });
    });
  });
});
