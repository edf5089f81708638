import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type InForceAlert,
  MarketDataError,
  type SimultaneousBreak,
} from '../../../../clients/typescript/src/index.ts';
import type { RestResponse } from '../../../../clients/typescript/src/rest.ts';
import {
  type CatchUpReader,
  MarketDataStream,
  type StreamOptions,
} from '../../../../clients/typescript/src/stream.ts';
import { FakeNodeWebSocket, FakeWebSocket } from './fake-websocket.ts';

const alert = (id: number, symbol = 'AAPL'): InForceAlert => ({
  id,
  symbol,
  timeframe: 'D',
  direction: 'bullish',
  shape: '1-2U',
  price: 200,
  triggered_at: '2024-11-22T14:50:45.000Z',
  cc: '2U',
});
const push = (item: InForceAlert) => ({ channel: 'alerts.in_force', symbol: item.symbol, data: item });

type Page = RestResponse<{ items: InForceAlert[] }>;

function openStream(
  options: StreamOptions & {
    alertPages?: (Page | Promise<Page> | Error)[];
    /** The feeds' head, as `since_id=latest` finds it (default 0). */
    head?: number | Promise<number>;
    Impl?: typeof FakeWebSocket;
  } = {},
) {
  const reads: { sinceId: number | undefined; symbols: readonly string[] | undefined }[] = [];
  const heads: string[] = [];
  const head = async (feed: 'alerts' | 'breaks') => {
    heads.push(feed);
    return (await options.head) ?? 0;
  };
  const pages = options.alertPages ?? [];
  const alerts: CatchUpReader<InForceAlert> = async (sinceId, symbols) => {
    reads.push({ sinceId, symbols });
    const page = await pages.shift();
    if (page instanceof Error) throw page;
    return page ?? { body: { items: [] } };
  };
  const breaks: CatchUpReader<SimultaneousBreak> = async () => ({ body: { items: [] } });
  const stream = new MarketDataStream(
    {
      url: 'ws://service.test/ws/market/v1',
      apiKey: 'mda_key',
      WebSocket: options.Impl ?? FakeWebSocket,
      alerts,
      breaks,
      head,
      random: () => 0,
    },
    { reconnect: { baseDelayMs: 10, maxDelayMs: 40 }, pingIntervalMs: 0, ...options },
  );
  const seen = {
    alerts: [] as number[],
    errors: [] as string[],
    closes: [] as { code: number; willReconnect: boolean }[],
    reconnecting: 0,
  };
  stream.on('alert', (item) => seen.alerts.push(item.id));
  stream.on('error', (error) => seen.errors.push(error.message));
  stream.on('close', ({ code, willReconnect }) => seen.closes.push({ code, willReconnect }));
  stream.on('reconnecting', () => seen.reconnecting++);
  return { stream, seen, reads, heads };
}

/** Lets pending promise callbacks run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Opens the latest socket and answers its subscribe messages. */
async function acceptSubscriptions(socket = FakeWebSocket.latest()) {
  socket.serverOpen();
  for (const message of socket.sent.filter((sent) => sent.op === 'subscribe')) {
    socket.serverSend({ op: 'subscribed', id: message.id, topics: message.topics });
  }
  await settle();
}

beforeEach(() => {
  FakeWebSocket.instances.length = 0;
});
afterEach(() => {
  vi.useRealTimers();
});

describe('MarketDataStream', () => {
  it('sends the key as a subprotocol where the implementation cannot set headers (browsers)', async () => {
    const { stream } = openStream();
    expect(FakeWebSocket.latest().args).toEqual([
      'ws://service.test/ws/market/v1',
      ['market-data.v1', 'key.mda_key'],
    ]);
    await stream.close();
  });

  it('sends the key in X-API-Key with the ws package, or as asked', async () => {
    const node = openStream({ Impl: FakeNodeWebSocket });
    expect(FakeWebSocket.latest().args[1]).toEqual({ headers: { 'X-API-Key': 'mda_key' } });
    await node.stream.close();
    const asked = openStream({ Impl: FakeNodeWebSocket, auth: 'subprotocol' });
    expect(FakeWebSocket.latest().args[1]).toEqual(['market-data.v1', 'key.mda_key']);
    await asked.stream.close();
  });

  it('subscribes on open with what was asked before, and again after a reconnection', async () => {
    const { stream } = openStream();
    stream.subscribe('quotes', ['aapl', 'ES1!']);
    stream.subscribe('alerts.in_force');
    const first = FakeWebSocket.latest();
    first.serverOpen();
    expect(first.sent).toEqual([
      {
        op: 'subscribe',
        id: expect.any(Number),
        topics: [
          { channel: 'quotes', symbols: ['AAPL', 'ES1!'], batch: true },
          { channel: 'alerts.in_force' },
        ],
      },
    ]);
    first.serverClose(1006);
    await vi.waitFor(() => expect(FakeWebSocket.instances).toHaveLength(2));
    const second = FakeWebSocket.latest();
    second.serverOpen();
    expect(second.sent[0]?.topics).toEqual(first.sent[0]?.topics);
    await stream.close();
  });

  it('emits each quote of a batched frame as its own quote event, in order, as it does a single quote', async () => {
    const { stream } = openStream();
    const quotes: string[] = [];
    stream.on('quote', (quote) => quotes.push(`${quote.symbol}@${quote.price}`));
    stream.subscribe('quotes', ['AAPL', 'MSFT']);
    await acceptSubscriptions();
    const socket = FakeWebSocket.latest();
    socket.serverSend({
      channel: 'quotes',
      data: {
        items: [
          { symbol: 'MSFT', price: 415, volume: 1 },
          { symbol: 'AAPL', price: 230, volume: 2 },
        ],
      },
    });
    socket.serverSend({ channel: 'quotes', symbol: 'AAPL', data: { symbol: 'AAPL', price: 231, volume: 3 } });
    expect(quotes).toEqual(['MSFT@415', 'AAPL@230', 'AAPL@231']);
    await stream.close();
  });

  it('delivers each alert once, dropping repeated pushes', async () => {
    const { stream, seen } = openStream({ alertsSinceId: 0 });
    stream.subscribe('alerts.in_force');
    await acceptSubscriptions();
    const socket = FakeWebSocket.latest();
    for (const id of [1, 2, 2, 1, 3]) socket.serverSend(push(alert(id)));
    expect(seen.alerts).toEqual([1, 2, 3]);
    expect(stream.duplicatesDropped).toBe(2);
    await stream.close();
  });

  it('after a reconnection reads the missed alerts from the last id, holding pushes back until then', async () => {
    let release: (page: Page) => void = () => {};
    const held = new Promise<Page>((resolve) => {
      release = resolve;
    });
    const { stream, seen, reads } = openStream({
      alertsSinceId: 0,
      alertPages: [{ body: { items: [] } }, held, { body: { items: [] } }],
    });
    stream.subscribe('alerts.in_force', ['AAPL']);
    await acceptSubscriptions();
    FakeWebSocket.latest().serverSend(push(alert(2)));
    FakeWebSocket.latest().serverClose(1006);
    await vi.waitFor(() => expect(FakeWebSocket.instances).toHaveLength(2));
    await acceptSubscriptions();
    // Pushed while the catch-up is under way: held back.
    FakeWebSocket.latest().serverSend(push(alert(5)));
    expect(seen.alerts).toEqual([2]);
    release({ body: { items: [alert(3), alert(4), alert(5)] }, nextSinceId: 5 });
    await vi.waitFor(() => expect(seen.alerts).toEqual([2, 3, 4, 5]));
    expect(reads.map((read) => read.sinceId)).toEqual([0, 2, 5]);
    expect(reads[1]?.symbols).toEqual(['AAPL']);
    expect(stream.duplicatesDropped).toBe(1);
    await stream.close();
  });

  it('on a fresh stream delivers every push after subscribed once, those at or below the head included', async () => {
    let release: (head: number) => void = () => {};
    const head = new Promise<number>((resolve) => {
      release = resolve;
    });
    const { stream, seen, reads, heads } = openStream({ head });
    stream.subscribe('alerts.in_force');
    await acceptSubscriptions();
    // Pushed after `subscribed`, while the head is being read: the REST head will already include 8.
    FakeWebSocket.latest().serverSend(push(alert(8)));
    release(8);
    await vi.waitFor(() => expect(seen.alerts).toEqual([8]));
    FakeWebSocket.latest().serverSend(push(alert(9)));
    FakeWebSocket.latest().serverSend(push(alert(9)));
    expect(seen.alerts).toEqual([8, 9]);
    expect(stream.duplicatesDropped).toBe(1);
    expect(heads).toEqual(['alerts']);
    expect(reads).toEqual([]);
    expect(stream.position.alertsSinceId).toBe(9);
    await stream.close();
  });

  it('on a fresh stream finds the head in one request, and catches up from it after a drop', async () => {
    const { stream, seen, reads, heads } = openStream({
      head: 7,
      alertPages: [{ body: { items: [alert(8)] }, nextSinceId: 8 }],
    });
    stream.subscribe('alerts.in_force');
    await acceptSubscriptions();
    await vi.waitFor(() => expect(stream.position.alertsSinceId).toBe(7));
    FakeWebSocket.latest().serverClose(1006);
    await vi.waitFor(() => expect(FakeWebSocket.instances).toHaveLength(2));
    await acceptSubscriptions();
    await vi.waitFor(() => expect(seen.alerts).toEqual([8]));
    expect(heads).toEqual(['alerts']);
    expect(reads[0]?.sinceId).toBe(7);
    await stream.close();
  });

  it.each([4401, 4403, 4409])('stops for good on close code %i', async (code) => {
    const { stream, seen } = openStream();
    FakeWebSocket.latest().serverOpen();
    FakeWebSocket.latest().serverClose(code, 'refused');
    expect(seen.closes).toEqual([{ code, willReconnect: false }]);
    expect(seen.errors[0]).toContain(`closed with ${code}`);
    await stream.close();
    expect(FakeWebSocket.instances).toHaveLength(1);
  });

  it("treats AWS's close message as its code, and a handshake refused with HTTP 403 as 4403", async () => {
    const aws = openStream();
    FakeWebSocket.latest().serverOpen();
    FakeWebSocket.latest().serverSend({ op: 'close', code: 4409, reason: 'replaced' });
    expect(aws.seen.closes).toEqual([{ code: 4409, willReconnect: false }]);
    const refused = openStream({ Impl: FakeNodeWebSocket });
    FakeWebSocket.latest().serverError('Unexpected server response: 403');
    FakeWebSocket.latest().serverClose(1006);
    expect(refused.seen.closes).toEqual([{ code: 4403, willReconnect: false }]);
  });

  it('reconnects after 4409 when asked to', async () => {
    const { stream, seen } = openStream({ reconnectAfter: [4409] });
    FakeWebSocket.latest().serverOpen();
    FakeWebSocket.latest().serverClose(4409);
    expect(seen.closes).toEqual([{ code: 4409, willReconnect: true }]);
    await vi.waitFor(() => expect(FakeWebSocket.instances).toHaveLength(2));
    await stream.close();
  });

  it('gives up after reconnect.maxAttempts failed attempts', async () => {
    const { stream, seen } = openStream({ reconnect: { baseDelayMs: 1, maxDelayMs: 2, maxAttempts: 2 } });
    FakeWebSocket.latest().serverClose(1006);
    await vi.waitFor(() => expect(FakeWebSocket.instances).toHaveLength(2));
    FakeWebSocket.latest().serverClose(1006);
    await vi.waitFor(() => expect(FakeWebSocket.instances).toHaveLength(3));
    FakeWebSocket.latest().serverClose(1006);
    expect(seen.closes.at(-1)).toEqual({ code: 1006, willReconnect: false });
    expect(seen.errors.at(-1)).toContain('gave up after 2');
    await stream.close();
  });

  it('drops a silent connection and an unanswered ping, and reconnects', async () => {
    vi.useFakeTimers();
    const silent = openStream({ silenceTimeoutMs: 1000 });
    FakeWebSocket.latest().serverOpen();
    vi.advanceTimersByTime(999);
    FakeWebSocket.latest().serverSend({ op: 'heartbeat' });
    vi.advanceTimersByTime(999);
    expect(silent.seen.reconnecting).toBe(0);
    vi.advanceTimersByTime(1);
    expect(silent.seen.closes).toEqual([{ code: 4000, willReconnect: true }]);
    await silent.stream.close();

    const pinging = openStream({ pingIntervalMs: 100, pongTimeoutMs: 50 });
    const socket = FakeWebSocket.latest();
    socket.serverOpen();
    vi.advanceTimersByTime(100);
    const ping = socket.sent.find((message) => message.op === 'ping');
    socket.serverSend({ op: 'pong', id: ping?.id });
    vi.advanceTimersByTime(100);
    expect(pinging.seen.reconnecting).toBe(0);
    vi.advanceTimersByTime(50);
    expect(pinging.seen.closes).toEqual([{ code: 4000, willReconnect: true }]);
    await pinging.stream.close();
  });

  it('reports a refused topic as an error event and stays open', async () => {
    const { stream, seen } = openStream();
    FakeWebSocket.latest().serverOpen();
    FakeWebSocket.latest().serverSend({
      op: 'error',
      id: 1,
      error: { code: 'missing_scope', message: 'missing scope' },
      topic: { channel: 'states', symbols: ['AAPL'] },
    });
    expect(seen.errors).toEqual(['missing scope']);
    expect(seen.closes).toEqual([]);
    await stream.close();
    expect(seen.closes).toEqual([{ code: 1000, willReconnect: false }]);
  });

  it('retries a failed catch-up read, holding pushes back until it succeeds', async () => {
    const { stream, seen, reads } = openStream({
      alertsSinceId: 1,
      alertPages: [new MarketDataError(0, 'network_error', 'offline'), { body: { items: [alert(2)] } }],
    });
    stream.subscribe('alerts.in_force');
    await acceptSubscriptions();
    FakeWebSocket.latest().serverSend(push(alert(3)));
    await vi.waitFor(() => expect(seen.alerts).toEqual([2, 3]));
    expect(seen.errors).toEqual(['offline']);
    expect(reads.map((read) => read.sinceId)).toEqual([1, 1, 2]);
    await stream.close();
  });

  it('does not retry a catch-up the key may not make, and delivers the held pushes', async () => {
    const { stream, seen, reads } = openStream({
      alertsSinceId: 1,
      alertPages: [new MarketDataError(403, 'missing_scope', 'missing scope')],
    });
    stream.subscribe('alerts.in_force');
    await acceptSubscriptions();
    FakeWebSocket.latest().serverSend(push(alert(4)));
    await vi.waitFor(() => expect(seen.alerts).toEqual([4]));
    expect(reads).toHaveLength(1);
    await stream.close();
  });

  it('catches up no feed whose topic the server refused', async () => {
    const { stream, reads } = openStream({ alertsSinceId: 1 });
    stream.subscribe('alerts.in_force');
    const socket = FakeWebSocket.latest();
    socket.serverOpen();
    socket.serverSend({ op: 'subscribed', id: socket.sent[0]?.id, topics: [] });
    await settle();
    expect(reads).toEqual([]);
    await stream.close();
  });
});
