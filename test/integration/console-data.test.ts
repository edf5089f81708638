import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, MarketDataError } from '../../console/src/data.ts';
import type { InForceAlert } from '../../console/src/types.ts';
import { startTestStack, type TestStack } from '../support/local-stack.ts';

/**
 * The console's data access (console/src/data.ts: the client library, clients/typescript) against the local
 * stack, with Node's global WebSocket, the browser's API, so the key goes as a subprotocol
 * (docs/console.md#data-access): typed errors, and a network drop during which alerts fire, caught up over
 * REST after the reconnect, each once and in order.
 *
 * test/fixtures/strat-week.csv sets up a daily 1-2U on ES1!, NQ1!, RTY1!, YM1! and AAPL that goes in force
 * on Friday 2024-11-22 (test/integration/strat-endpoints.test.ts); the service clock reads Friday 11:00 New
 * York.
 */
let local: TestStack;
const fixtures: Record<'history' | 'first' | 'rest', string> = { history: '', first: '', rest: '' };

beforeAll(async () => {
  local = await startTestStack({ clock: { start: new Date('2024-11-22T16:00:00Z'), speed: 1 } });
  const [header, ...rows] = (await readFile('test/fixtures/strat-week.csv', 'utf8')).trim().split('\n');
  const friday = (row: string) => row.startsWith('2024-11-22');
  const parts = {
    history: rows.filter((row) => !friday(row)),
    first: rows.filter((row) => friday(row) && row.includes(',ES1!,')),
    rest: rows.filter((row) => friday(row) && !row.includes(',ES1!,')),
  };
  for (const [name, part] of Object.entries(parts) as [keyof typeof fixtures, string[]][]) {
    fixtures[name] = join(tmpdir(), `console-client-${process.pid}-${name}.csv`);
    await writeFile(fixtures[name], `${[header, ...part].join('\n')}\n`);
  }
  await local.replay(fixtures.history);
}, 120_000);
afterAll(async () => {
  await local.stop();
});

async function until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the console data access (the client library, as in a browser)', () => {
  it('throws MarketDataError with the status and the envelope code, 404 without a body included', async () => {
    const client = createClient({ baseUrl: local.stack.restUrl, apiKey: local.stack.demoKey });
    const unknown = await client.getState('ZZZZ').catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(MarketDataError);
    expect(unknown).toMatchObject({ status: 404, code: 'unknown_symbol' });
    const badInterval = await client
      // @ts-expect-error: an interval the service does not know, as a page could send
      .getCandles('AAPL', { interval: '2d' })
      .catch((error: unknown) => error);
    expect(badInterval).toMatchObject({ status: 404, code: 'unknown_interval' });
    const noKey = createClient({ baseUrl: local.stack.restUrl, apiKey: 'nope' });
    expect(await noKey.getMarketStatus().catch((error: unknown) => error)).toMatchObject({
      status: 401,
      code: 'missing_api_key',
    });
  });

  it('catches up the alerts fired during a network drop over REST: each once, in id order', async () => {
    const sockets: WebSocket[] = [];
    let offline = false;
    // Node's WebSocket (the browser's API); while "offline", connection attempts go nowhere.
    class DroppableWebSocket extends WebSocket {
      constructor(url: string | URL, protocols?: string | string[]) {
        super(offline ? 'ws://127.0.0.1:9/' : url, protocols);
        sockets.push(this);
      }
    }
    const client = createClient({
      baseUrl: local.stack.restUrl,
      apiKey: local.stack.demoKey,
      WebSocket: DroppableWebSocket,
    });
    const stream = client.stream();
    const alerts: InForceAlert[] = [];
    let opens = 0;
    stream.on('alert', (alert) => alerts.push(alert));
    stream.on('open', () => {
      opens += 1;
    });
    stream.subscribe('alerts.in_force');
    try {
      await until(() => opens === 1, 'the first connection');
      expect(sockets[0]?.protocol).toBe('market-data.v1');
      // The subscribe goes out on open; the replay, a process of its own, comes seconds later.
      await local.replay(fixtures.first);
      // ES1!'s setups go in force on every intraday timeframe and the day: one alert each.
      const live = (await client.getInForceAlerts({})).items;
      expect(live.length).toBeGreaterThan(1);
      await until(() => alerts.length === live.length, 'the live alerts of ES1!');
      expect(alerts.map((alert) => alert.id)).toEqual(live.map((alert) => alert.id));

      offline = true;
      sockets.at(-1)?.close(4000, 'network drop');
      await local.replay(fixtures.rest);
      offline = false;
      await until(() => opens === 2, 'the reconnection', 60_000);

      const { items } = await client.getInForceAlerts({});
      expect(new Set(items.map((alert) => alert.symbol))).toEqual(
        new Set(['AAPL', 'ES1!', 'NQ1!', 'RTY1!', 'YM1!']),
      );
      expect(items.length).toBeGreaterThan(live.length);
      await until(() => alerts.length >= items.length, 'the alerts caught up');
      expect(alerts.map((alert) => alert.id)).toEqual(items.map((alert) => alert.id));
    } finally {
      await stream.close();
    }
  }, 120_000);
});
