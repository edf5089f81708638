import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  createClient,
  type InForceAlert,
  type MarketDataStream,
  type PriceItem,
  type SimultaneousBreak,
} from '../../clients/typescript/src/index.ts';
import { startTestStack, type TestStack } from '../support/local-stack.ts';
import { TcpProxy } from '../support/tcp-proxy.ts';

/**
 * The stream client across a network drop and an eviction. test/fixtures/strat-week.csv is replayed in two
 * parts (see strat-endpoints.test.ts): the week and ES1!'s Friday bar while connected (ES1!'s alerts go in
 * force), then, while a proxy in front of the WebSocket has cut the connection, the other Friday bars (the
 * alerts of NQ1!, RTY1!, YM1! and AAPL, and the simultaneous breaks). After the connection comes back the
 * client must have delivered every alert and break exactly once, in id order: what REST lists.
 */
let local: TestStack;
let proxy: TcpProxy;
let directory: string;
const streams: MarketDataStream[] = [];

const FIXTURE = readFileSync('test/fixtures/strat-week.csv', 'utf8').trim().split('\n');
const FIRST_FRIDAY_ROW = FIXTURE.findIndex((line) => line.startsWith('2024-11-22'));

beforeAll(async () => {
  local = await startTestStack({ clock: { start: new Date('2024-11-22T16:00:00Z'), speed: 1 } });
  proxy = await TcpProxy.start(Number(new URL(local.stack.restUrl).port));
  directory = await mkdtemp(join(tmpdir(), 'client-stream-'));
  const [header, ...rows] = FIXTURE;
  await writeFile(join(directory, 'connected.csv'), [header, ...rows.slice(0, FIRST_FRIDAY_ROW)].join('\n'));
  await writeFile(join(directory, 'dropped.csv'), [header, ...rows.slice(FIRST_FRIDAY_ROW)].join('\n'));
}, 60_000);
afterAll(async () => {
  await Promise.all(streams.map((stream) => stream.close()));
  await proxy.close();
  await local.stop();
  await rm(directory, { recursive: true, force: true });
});

function open(options: { viaProxy?: boolean; reconnectAfter?: number[] } = {}) {
  const wsUrl = new URL(local.stack.wsUrl);
  if (options.viaProxy) wsUrl.port = String(proxy.port);
  const client = createClient({
    baseUrl: local.stack.restUrl,
    apiKey: local.stack.demoKey,
    wsUrl: wsUrl.toString(),
    WebSocket,
  });
  const stream = client.stream({
    reconnect: { baseDelayMs: 50, maxDelayMs: 200 },
    reconnectAfter: options.reconnectAfter,
  });
  streams.push(stream);
  const seen = {
    alerts: [] as InForceAlert[],
    breaks: [] as SimultaneousBreak[],
    quotes: [] as PriceItem[],
    /** The channels of every `subscribed` reply. */
    channels: new Set<string>(),
    closes: [] as { code: number; willReconnect: boolean }[],
    reconnecting: 0,
    opens: [] as boolean[],
    subscribed: 0,
  };
  stream.on('alert', (alert) => seen.alerts.push(alert));
  stream.on('quote', (quote) => seen.quotes.push(quote));
  stream.on('break', (event) => seen.breaks.push(event));
  stream.on('close', ({ code, willReconnect }) => seen.closes.push({ code, willReconnect }));
  stream.on('reconnecting', () => seen.reconnecting++);
  stream.on('open', ({ reconnected }) => seen.opens.push(reconnected));
  stream.on('subscribed', (reply) => {
    seen.subscribed++;
    for (const topic of reply.topics) seen.channels.add(topic.channel);
  });
  return { stream, seen };
}

/** Waits until `condition` holds (checked every 20 ms); fails naming `what` after `timeoutMs`. */
async function until(what: string, condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function feeds() {
  const query = '?limit=1000&window_minutes=10080';
  return {
    alerts: (await local.get(`/alerts/in-force${query}`)).body.items as InForceAlert[],
    breaks: (await local.get(`/alerts/simultaneous-breaks${query}`)).body.items as SimultaneousBreak[],
  };
}

describe('the stream client', () => {
  it('delivers every alert and break once, in order, across a dropped connection', async () => {
    const { stream, seen } = open({ viaProxy: true });
    stream.subscribe('alerts.in_force');
    stream.subscribe('alerts.simultaneous_breaks');
    // Subscribed batched (the client always asks): each quote of a frame comes as its own event.
    stream.subscribe('quotes', ['AAPL', 'ES1!']);
    await until('the subscriptions', () => seen.channels.size === 3);

    await local.replay(join(directory, 'connected.csv'));
    await local.stack.changes.flush();
    const before = await feeds();
    expect(before.alerts.length).toBeGreaterThan(0);
    expect(before.alerts.every((alert) => alert.symbol === 'ES1!')).toBe(true);
    await until('the pushes of the first part', () => seen.alerts.length === before.alerts.length);
    const latest = (await local.get('/prices/latest?symbols=AAPL,ES1!')).body.items as PriceItem[];
    for (const item of latest) {
      await until(`the last quote of ${item.symbol}`, () =>
        seen.quotes.some((quote) => quote.symbol === item.symbol && quote.price === item.price),
      );
      expect(seen.quotes.filter((quote) => quote.symbol === item.symbol).at(-1)).toEqual(item);
    }

    proxy.cut();
    await local.replay(join(directory, 'dropped.csv'));
    await local.stack.changes.flush();
    const after = await feeds();
    expect(after.alerts.length).toBeGreaterThan(before.alerts.length);
    expect(after.breaks.length).toBeGreaterThan(0);
    expect(seen.alerts).toEqual(before.alerts);
    proxy.restore();

    await until(
      'the catch-up',
      () => seen.alerts.length >= after.alerts.length && seen.breaks.length >= after.breaks.length,
    );
    expect(seen.alerts).toEqual(after.alerts);
    expect(seen.breaks).toEqual(after.breaks);
    expect(seen.reconnecting).toBeGreaterThan(0);
    expect(seen.opens.at(-1)).toBe(true);
    expect(stream.position).toEqual({
      alertsSinceId: after.alerts.at(-1)?.id,
      breaksSinceId: after.breaks.at(-1)?.id,
    });
  });

  it('stops for good when a newer connection of the account evicts it (4409)', async () => {
    const first = open();
    first.stream.subscribe('quotes', ['AAPL']);
    await until('the first connection', () => first.seen.subscribed === 1);
    const second = open();
    second.stream.subscribe('quotes', ['AAPL']);
    await until('the eviction', () => first.seen.closes.length > 0);
    expect(first.seen.closes).toEqual([{ code: 4409, willReconnect: false }]);
    expect(first.seen.reconnecting).toBe(0);
    await until('the second connection', () => second.seen.subscribed === 1);
    expect(second.seen.closes).toEqual([]);
  });

  it('reconnects after 4409 when asked to, evicting the newer connection in turn', async () => {
    const stubborn = open({ reconnectAfter: [4409] });
    stubborn.stream.subscribe('quotes', ['AAPL']);
    await until('the stubborn connection', () => stubborn.seen.subscribed === 1);
    const newer = open();
    await until('the newer connection evicted', () => newer.seen.closes.length > 0);
    await until('the stubborn one back', () => stubborn.seen.opens.length === 2);
    expect(stubborn.seen.closes[0]).toEqual({ code: 4409, willReconnect: true });
    expect(stubborn.seen.opens).toEqual([false, true]);
    expect(newer.seen.closes).toEqual([{ code: 4409, willReconnect: false }]);
  });
});
