import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { polygonFeed } from '#adapters/feed/polygon';
import type { ProviderSocketOptions } from '#adapters/feed/provider-socket';
import type { FeedConnection } from '#domain/feed/ports';
import { FakeProvider } from '../../../support/fake-providers.ts';
import { recordingListener } from '../../../support/feed-listener.ts';

const symbols = new Map([['MSFT', 'MSFT']]);
/** The defaults' proportions (ping 5 s, dead after 10 s) at a hundredth of the scale. */
const short: ProviderSocketOptions = { pingIntervalMs: 20, deadAfterMs: 100, closeTimeoutMs: 50 };

describe('provider sockets and dead connections', () => {
  let fake: FakeProvider;
  const open: FeedConnection[] = [];
  const connect = async (socket: ProviderSocketOptions) => {
    const heard = recordingListener();
    const feed = polygonFeed('stocks', 'api-key', { socketUrl: fake.url('/stocks'), socket });
    const connection = await feed.connect(symbols, heard.listener);
    open.push(connection);
    return { heard, connection };
  };

  beforeEach(async () => {
    fake = await FakeProvider.start('polygon', { key: 'api-key' });
  });
  afterEach(async () => {
    for (const connection of open.splice(0)) connection.close();
    await fake.close();
  });

  it('terminates a half-open socket whose pings go unanswered and says why', async () => {
    const { heard } = await connect(short);
    fake.goHalfOpen();
    await vi.waitFor(() => expect(heard.closes).toHaveLength(1));
    expect(heard.closes[0]).toMatchObject({
      code: 'protocol',
      retryable: true,
      message: expect.stringMatching(/no frame from the provider .* socket terminated/),
    });
  });

  it('keeps a quiet socket that answers its pings', async () => {
    const { heard } = await connect(short);
    // Ten pings span twice the deadline: the pongs alone keep it alive.
    await vi.waitFor(() => expect(fake.pings).toBeGreaterThanOrEqual(10));
    expect(heard.closes).toEqual([]);
  });

  it('does not count the silence of a socket paused for back-pressure', async () => {
    const { heard, connection } = await connect(short);
    connection.pause();
    await vi.waitFor(() => expect(fake.pings).toBeGreaterThanOrEqual(10));
    expect(heard.closes).toEqual([]);
    connection.resume();
  });

  it('terminates on close() when the peer never answers the close handshake', async () => {
    const { heard, connection } = await connect({ ...short, pingIntervalMs: 60_000, deadAfterMs: 60_000 });
    fake.goHalfOpen();
    connection.close();
    await vi.waitFor(() => expect(heard.closes).toHaveLength(1));
    expect(heard.closes[0]).toBeUndefined();
  });

  it('with the default figures, notices a half-open socket within 20 s of its going quiet', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'setTimeout', 'clearInterval', 'clearTimeout', 'Date'] });
    let heard: ReturnType<typeof recordingListener>;
    try {
      ({ heard } = await connect({}));
      fake.goHalfOpen();
      await vi.advanceTimersByTimeAsync(20_000);
    } finally {
      vi.useRealTimers();
    }
    await vi.waitFor(() => expect(heard.closes).toHaveLength(1));
    expect(heard.closes[0]?.message).toMatch(/pings unanswered/);
  });
});
