import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushSchemas, quotesBatchSchema } from '#domain/streaming/messages';
import { createKey } from '#scripts/lib/key-administration';
import { DEMO_ACCOUNT } from '../../scripts/local/demo-key.ts';
import { localDocumentClient } from '../../scripts/local/dynamo.ts';
import { localTableName } from '../../scripts/local/tables.ts';
import { startTestStack, type TestStack } from '../support/local-stack.ts';
import { TestWebSocketClient } from '../support/ws-client.ts';

/**
 * The replay of test/fixtures/strat-week.csv (see strat-endpoints.test.ts) drives all four channels: quotes
 * and states of AAPL and the futures, the daily 1-2U alerts going in force, and the simultaneous breaks of
 * ES1!, NQ1! and RTY1!. The pushes must be what REST serves.
 */
let local: TestStack;
let client: TestWebSocketClient;
/** Another account's connection, following the same quotes batched (docs/websocket.md#batched-quotes). */
let batchedClient: TestWebSocketClient;
const BATCHED_ACCOUNT = 'batched-quotes';

const HEARTBEAT_MS = 300;

beforeAll(async () => {
  local = await startTestStack({
    clock: { start: new Date('2024-11-22T16:00:00Z'), speed: 1 },
    heartbeatMs: HEARTBEAT_MS,
  });
  client = TestWebSocketClient.connect(local.stack.wsUrl, { 'X-API-Key': local.stack.demoKey });
  await client.opened();
  const reply = await client.request(
    {
      op: 'subscribe',
      topics: [
        { channel: 'quotes', symbols: ['AAPL', 'ES1!'] },
        { channel: 'states', symbols: ['AAPL'] },
        { channel: 'alerts.in_force' },
        { channel: 'alerts.simultaneous_breaks' },
      ],
    },
    'subscribed',
  );
  expect(reply.topics).toHaveLength(4);
  const { rawKey } = await createKey(
    { accountId: BATCHED_ACCOUNT, label: 'batched quotes', scopes: ['ws:connect', 'prices:read'] },
    local.stack.keyAdministration,
  );
  batchedClient = TestWebSocketClient.connect(local.stack.wsUrl, { 'X-API-Key': rawKey });
  await batchedClient.opened();
  await batchedClient.request(
    { op: 'subscribe', topics: [{ channel: 'quotes', symbols: ['AAPL', 'ES1!'], batch: true }] },
    'subscribed',
  );
  await local.replay('test/fixtures/strat-week.csv');
  await local.stack.changes.flush();
}, 60_000);
afterAll(async () => {
  client.close();
  batchedClient.close();
  await local.stop();
});

const pushed = (channel: string) => client.messages.filter((message) => message.channel === channel);

describe('WebSocket channels fed by a replay', () => {
  it('pushes quotes of the subscribed symbols only, ending at the latest price REST serves', async () => {
    const quotes = pushed('quotes').map((message) => pushSchemas.quotes.parse(message));
    expect(new Set(quotes.map((quote) => quote.symbol))).toEqual(new Set(['AAPL', 'ES1!']));
    const latest = await local.get('/prices/latest?symbols=AAPL,ES1!');
    for (const item of latest.body.items) {
      expect(quotes.filter((quote) => quote.symbol === item.symbol).at(-1)?.data).toEqual(item);
    }
  });

  it('pushes the same quotes, several to a frame, to a connection that subscribed them batched', async () => {
    const frames = batchedClient.messages
      .filter((message) => message.channel === 'quotes')
      .map((message) => quotesBatchSchema.parse(message));
    const items = frames.flatMap((frame) => frame.data.items);
    const single = pushed('quotes').map((message) => pushSchemas.quotes.parse(message).data);
    for (const symbol of ['AAPL', 'ES1!']) {
      expect(items.filter((item) => item.symbol === symbol)).toEqual(
        single.filter((item) => item.symbol === symbol),
      );
    }
    expect(frames.length).toBeLessThan(items.length);
    expect(
      frames.every(
        (frame) => new Set(frame.data.items.map(({ symbol }) => symbol)).size === frame.data.items.length,
      ),
    ).toBe(true);
  });

  it('pushes AAPL state changes, the last one equal to GET /states/AAPL', async () => {
    const states = pushed('states').map((message) => pushSchemas.states.parse(message));
    expect(states.length).toBeGreaterThan(0);
    expect(states.every((state) => state.symbol === 'AAPL')).toBe(true);
    const rest = await local.get('/states/AAPL');
    expect(states.at(-1)?.data).toEqual(rest.body);
  });

  it('pushes every in-force alert of the feed once, as GET /alerts/in-force lists them', async () => {
    const alerts = pushed('alerts.in_force').map((message) => pushSchemas['alerts.in_force'].parse(message));
    const rest = await local.get('/alerts/in-force?limit=1000&window_minutes=10080');
    expect(rest.body.items.length).toBeGreaterThan(0);
    expect(alerts.map((alert) => alert.data).sort((a, b) => a.id - b.id)).toEqual(rest.body.items);
    expect(alerts.every((alert) => alert.symbol === alert.data.symbol)).toBe(true);
  });

  it('pushes every simultaneous break once, as GET /alerts/simultaneous-breaks lists them', async () => {
    const breaks = pushed('alerts.simultaneous_breaks').map((message) =>
      pushSchemas['alerts.simultaneous_breaks'].parse(message),
    );
    const rest = await local.get('/alerts/simultaneous-breaks?limit=1000&window_minutes=10080');
    expect(rest.body.items.length).toBeGreaterThan(0);
    expect(breaks.map((event) => event.data).sort((a, b) => a.id - b.id)).toEqual(rest.body.items);
  });

  it('writes one ws_message usage row per pushed event, none for replies or heartbeats', async () => {
    // The stack's usage files (scripts/local/usage-files.ts), as the report reads them: each (account,
    // message) once, a redelivered batch's rows written again counted once.
    const folder = join(local.stack.usageRoot, 'usage');
    const lines: string[] = [];
    for (const day of await readdir(folder)) {
      for (const file of await readdir(join(folder, day))) {
        lines.push(...(await readFile(join(folder, day, file), 'utf8')).split('\n').filter(Boolean));
      }
    }
    const unique = new Map<string, Record<string, unknown>>();
    for (const row of lines.map((line) => JSON.parse(line) as Record<string, unknown>)) {
      if (row.accountId === DEMO_ACCOUNT) unique.set(String(row.messageId), row);
    }
    const rows = [...unique.values()];
    const events = client.messages.filter((message) => 'channel' in message);
    expect(rows).toHaveLength(events.length);
    const count = (channel: string) => rows.filter((row) => row.channel === channel).length;
    for (const channel of ['quotes', 'states', 'alerts.in_force', 'alerts.simultaneous_breaks']) {
      expect(count(channel)).toBe(pushed(channel).length);
    }
    expect(rows[0]).toMatchObject({ type: 'ws_message', accountId: DEMO_ACCOUNT, keyId: expect.any(String) });
    // Batched or not, a quote is one usage row: the batched account is billed what the other is.
    const batchedRows = new Set(
      lines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((row) => row.accountId === BATCHED_ACCOUNT)
        .map((row) => String(row.messageId)),
    );
    expect([...batchedRows].sort()).toEqual(
      rows
        .filter((row) => row.channel === 'quotes')
        .map((row) => String(row.messageId))
        .sort(),
    );
    expect(Date.parse(String(rows[0]?.time))).not.toBeNaN();
    // Nothing goes to the DynamoDB usage table any more.
    const table = await localDocumentClient(local.stack.dynamoEndpoint).send(
      new QueryCommand({
        TableName: localTableName('usage'),
        KeyConditionExpression: 'accountId = :account',
        ExpressionAttributeValues: { ':account': DEMO_ACCOUNT },
      }),
    );
    expect(table.Items).toEqual([]);
  });

  it('sends heartbeats to a connection', async () => {
    const from = client.messages.length;
    expect(await client.next((message) => message.op === 'heartbeat', { from })).toEqual({ op: 'heartbeat' });
  });
});
