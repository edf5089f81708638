import { appendFile, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageDayPrefix } from '#contracts/usage';
import { encodeTradeRecords } from '#domain/market-data/trade-records';
import { createKey } from '#scripts/lib/key-administration';
import { startTestStack, type TestStack } from '../support/local-stack.ts';
import { runScript } from '../support/processes.ts';
import { TestWebSocketClient } from '../support/ws-client.ts';

/**
 * `npm run usage` against the local stack (docs/operations.md#usage-report): the WebSocket messages a client
 * received and the REST requests a key made, counted back exactly.
 */
const SESSION_START_MS = Date.parse('2024-11-26T15:00:00Z');
let local: TestStack;
beforeAll(async () => {
  local = await startTestStack({ clock: { start: new Date(SESSION_START_MS), speed: 1 } });
});
afterAll(() => local?.stop());

/** The service's day (its clock runs from SESSION_START_MS): usage is dated by the service clock. */
const today = () => new Date(SESSION_START_MS).toISOString().slice(0, 10);
const usage = (...args: string[]) =>
  runScript('scripts/usage.ts', [
    '--url',
    local.stack.restUrl,
    '--endpoint',
    local.stack.dynamoEndpoint,
    '--from',
    today(),
    '--to',
    today(),
    ...args,
  ]);

describe('npm run usage', () => {
  it('reports exactly the quotes a client received, and the REST requests of a key', async () => {
    const { rawKey, record } = await createKey(
      { accountId: 'billed', label: 'usage', scopes: ['ws:connect', 'prices:read', 'metadata:read'] },
      local.stack.keyAdministration,
    );
    const client = TestWebSocketClient.connect(local.stack.wsUrl, { 'X-API-Key': rawKey });
    await client.opened();
    await client.request({ op: 'subscribe', topics: [{ channel: 'quotes', symbols: ['KO'] }] }, 'subscribed');
    const prices = [61.1, 61.2, 61.3, 61.4, 61.5];
    for (const [index, price] of prices.entries()) {
      local.stack.trades.put(
        encodeTradeRecords([
          {
            symbol: 'KO',
            price,
            size: 10,
            timestamp: SESSION_START_MS + 1000 * index,
            tradeId: `u-${index}`,
          },
        ]),
      );
      await local.stack.trades.flush();
      await client.next(
        (message) => message.channel === 'quotes' && (message.data as { price?: number }).price === price,
      );
    }
    await local.stack.changes.flush();
    const received = client.messages.filter((message) => message.channel === 'quotes').length;
    client.close();

    for (let n = 0; n < 3; n++) await local.get('/instruments/KO', { 'X-API-Key': rawKey });

    const report = await usage('--account', 'billed', '--format', 'csv');
    expect(report.stderr).toBe('');
    expect(report.code).toBe(0);
    const [wsBlock = '', restBlock = ''] = report.stdout.trim().split('\n\n');
    expect(wsBlock.split('\n')).toEqual([
      'date,account,key_id,channel,messages',
      `${today()},billed,${record.keyId},quotes,${received}`,
    ]);
    expect(received).toBe(prices.length);
    expect(restBlock.split('\n')).toEqual([
      'date,account,key_id,requests',
      `${today()},billed,${record.keyId},3`,
    ]);

    // The rows went to the stack's usage files, not DynamoDB. A redelivered fan-out batch writes its rows
    // again: the report counts each (account, message) once.
    const dayFolder = join(local.stack.usageRoot, usageDayPrefix(today()));
    const files = await readdir(dayFolder);
    const written = (await Promise.all(files.map((file) => readFile(join(dayFolder, file), 'utf8')))).join(
      '',
    );
    expect(written.trim().split('\n')).toHaveLength(received);
    await appendFile(join(dayFolder, 'redelivered.ndjson'), written);
    expect((await usage('--account', 'billed', '--format', 'csv')).stdout).toBe(report.stdout);

    const table = await usage('--account', 'billed');
    expect(table.stdout).toContain('WebSocket messages pushed');
    expect(table.stdout).toMatch(new RegExp(`billed\\s+${record.keyId}\\s+quotes\\s+${received}`));
  });

  it('refuses a bad date range in one line with exit code 2', async () => {
    const result = await runScript('scripts/usage.ts', ['--from', '2024-11-30', '--to', '2024-11-01']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe('usage: --from 2024-11-30 is after --to 2024-11-01');
  });
});
