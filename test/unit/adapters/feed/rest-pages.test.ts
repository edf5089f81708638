import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { getPage, isSameOrigin, REST_RETRY, retryAfterMs } from '#adapters/feed/rest-pages';

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
});
