/**
 * The fault-injection suite (docs/architecture.md#faults-and-what-they-cost): the local stack under faults a
 * real deployment meets, each checked against the data: every session's volume equals the trades' total, and
 * the in-force alerts and simultaneous breaks are exactly those a fault-free ingest appends, each once, with
 * gapless ids.
 */
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Trade } from '#domain/market-data/bars';
import { encodeTradeRecords } from '#domain/market-data/trade-records';
import { localDocumentClient } from '../../scripts/local/dynamo.ts';
import { scanLocalTable } from '../../scripts/local/tables.ts';
import { startTestStack, type TestStack } from '../support/local-stack.ts';
import { runScript, spawnScript, waitForOutput } from '../support/processes.ts';
import { referenceAlerts, SESSIONS, syntheticTrades, volumeBySession } from '../support/trade-streams.ts';

type Get = (path: string) => Promise<{ status: number; body: { bars: { time: number; volume: number }[] } }>;

/** Each session's 1d volume as `/candles` serves it. */
async function servedVolumes(get: Get, symbol: string): Promise<Record<string, number>> {
  const response = await get(
    `/candles/${encodeURIComponent(symbol)}?interval=1d&start=${SESSIONS[0]}&end=${SESSIONS.at(-1)}T23:59:59Z`,
  );
  expect(response.status).toBe(200);
  return Object.fromEntries(
    response.body.bars.map((bar) => [new Date(bar.time * 1000).toISOString().slice(0, 10), bar.volume]),
  );
}

/** The stored feed events of one table: their natural keys (sorted) and ids (ascending). */
async function storedFeed(dynamoEndpoint: string, table: 'alerts' | 'breaks') {
  const items = await scanLocalTable(localDocumentClient(dynamoEndpoint), table);
  return {
    keys: items.map((item) => item.onceKey as string).sort(),
    ids: items.map((item) => item.id as number).sort((a, b) => a - b),
  };
}

const gapless = (count: number) => Array.from({ length: count }, (_, index) => index + 1);

describe('faults in one stack: 1% of DynamoDB writes throttled throughout', () => {
  let test: TestStack;
  const aapl = syntheticTrades('AAPL', 225, [5, 25, 45], 1);
  const es = syntheticTrades('ES1!', 5_950, [10, 30, 50], 2);
  const nq = syntheticTrades('NQ1!', 20_800, [12, 32, 52], 3);
  // Four trades a second apart each minute, every pair delivered swapped: late by one second.
  const msft = syntheticTrades('MSFT', 415, [20, 21, 22, 23], 4);
  const swapped = msft.flatMap((trade, index) =>
    index % 2 === 0 ? (msft[index + 1] ? [msft[index + 1] as Trade, trade] : [trade]) : [],
  );

  async function deliver(records: readonly { partitionKey: string; data: string }[]) {
    test.stack.trades.put(records);
    await test.stack.trades.flush();
  }

  beforeAll(async () => {
    test = await startTestStack({ dynamoFaults: { throttledWriteShare: 0.01, seed: 7 } });
    const records = (trades: readonly Trade[]) =>
      encodeTradeRecords(trades).map(({ partitionKey, data }) => ({ partitionKey, data }));
    const interleaved = [aapl, es, nq].flatMap((stream) => records(stream));
    // Batches of a few hundred records; every fifth batch is delivered twice over.
    for (let start = 0, batch = 0; start < interleaved.length; start += 40, batch++) {
      const slice = interleaved.slice(start, start + 40);
      await deliver(slice);
      if (batch % 5 === 0) await deliver(slice);
    }
    // A poison record inside a batch of MSFT trades, each its own record, late by a second in pairs.
    const msftRecords = swapped.map((trade) => ({ partitionKey: trade.symbol, data: JSON.stringify(trade) }));
    msftRecords.splice(500, 0, { partitionKey: 'MSFT', data: '{"symbol":"MSFT","price":' });
    for (let start = 0; start < msftRecords.length; start += 1_000)
      await deliver(msftRecords.slice(start, start + 1_000));
  }, 600_000);
  afterAll(() => test?.stop());

  it('injected throttling errors (the SDK retries them; a batch that still fails is delivered again)', () => {
    expect(test.stack.throttledWrites()).toBeGreaterThan(0);
  });

  it.each([
    ['AAPL, with whole batches delivered twice', 'AAPL', aapl],
    ['ES1!, with whole batches delivered twice', 'ES1!', es],
    ['MSFT, delivered out of order within the tolerance, with a poison record', 'MSFT', msft],
  ])('counts every trade of %s exactly once in each session', async (_case, symbol, trades) => {
    expect(await servedVolumes((path) => test.get(path), symbol)).toEqual(volumeBySession(trades));
  });

  it('dead-letters the poison record, and nothing else', () => {
    expect(test.stack.deadLetterQueue.bodies().map((body) => JSON.parse(body).refused?.reason)).toEqual([
      'poison',
    ]);
  });

  it('appends exactly the alerts and breaks of a fault-free ingest, each once, ids gapless', async () => {
    const expected = referenceAlerts([aapl, es, nq, swapped]);
    const alerts = await storedFeed(test.stack.dynamoEndpoint, 'alerts');
    const breaks = await storedFeed(test.stack.dynamoEndpoint, 'breaks');
    expect(alerts.keys).toEqual(expected.alerts);
    expect(alerts.ids).toEqual(gapless(expected.alerts.length));
    expect(breaks.keys).toEqual(expected.breaks);
    expect(breaks.ids).toEqual(gapless(expected.breaks.length));
  });
});

describe('a local stack killed with SIGKILL in the middle of a replay, started again, the replay run again', () => {
  let dataDir: string;
  const trades = [
    ...syntheticTrades('AAPL', 225, [5, 25, 45], 11),
    ...syntheticTrades('ES1!', 5_950, [10, 30, 50], 12),
    ...syntheticTrades('NQ1!', 20_800, [12, 32, 52], 13),
  ].sort((a, b) => a.timestamp - b.timestamp);

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mda-sigkill-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  const start = async () => {
    const child = spawnScript(
      'scripts/local/start.ts',
      ['--port', '0', '--dynamo-port', '0', '--data-dir', dataDir, '--no-simulator'],
      {},
      true,
    );
    const banner = await waitForOutput(child, /Ctrl-C stops it/, 60_000);
    return {
      child,
      restUrl: /REST\s+(\S+)/.exec(banner)?.[1] ?? '',
      demoKey: /Demo key\s+(\S+)/.exec(banner)?.[1] ?? '',
      dynamoEndpoint: /DynamoDB\s+(\S+)/.exec(banner)?.[1] ?? '',
    };
  };

  it('applies every trade exactly once and appends every alert and break once, ids gapless', async () => {
    const file = join(dataDir, 'trades.csv');
    await writeFile(
      file,
      `time,symbol,price,size\n${trades
        .map((t) => `${new Date(t.timestamp).toISOString()},${t.symbol},${t.price},${t.size}`)
        .join('\n')}\n`,
    );
    const first = await start();
    const replay = spawnScript('scripts/replay.ts', ['--file', file, '--url', first.restUrl]);
    // Kill the whole stack (its process group: the gateway and the store) once part of the file is in.
    const get = async (path: string) => {
      const response = await fetch(`${first.restUrl}${path}`, { headers: { 'X-API-Key': first.demoKey } });
      return { status: response.status, body: (await response.json()) as never };
    };
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const volumes = await servedVolumes(get, 'AAPL').catch(() => ({}));
      if (Object.keys(volumes).length >= 2) break;
    }
    process.kill(-(first.child.pid as number), 'SIGKILL');
    await once(first.child, 'exit');
    replay.kill('SIGKILL');

    const second = await start();
    try {
      const again = await runScript('scripts/replay.ts', ['--file', file, '--url', second.restUrl]);
      expect(again.code).toBe(0);
      const getAgain = async (path: string) => {
        const response = await fetch(`${second.restUrl}${path}`, {
          headers: { 'X-API-Key': second.demoKey },
        });
        return { status: response.status, body: (await response.json()) as never };
      };
      for (const symbol of ['AAPL', 'ES1!', 'NQ1!']) {
        expect(await servedVolumes(getAgain, symbol)).toEqual(
          volumeBySession(trades.filter((trade) => trade.symbol === symbol)),
        );
      }
      const expected = referenceAlerts(
        ['AAPL', 'ES1!', 'NQ1!'].map((symbol) => trades.filter((trade) => trade.symbol === symbol)),
      );
      const alerts = await storedFeed(second.dynamoEndpoint, 'alerts');
      const breaks = await storedFeed(second.dynamoEndpoint, 'breaks');
      expect(alerts.keys).toEqual(expected.alerts);
      expect(alerts.ids).toEqual(gapless(expected.alerts.length));
      expect(breaks.keys).toEqual(expected.breaks);
      expect(breaks.ids).toEqual(gapless(expected.breaks.length));
    } finally {
      process.kill(-(second.child.pid as number), 'SIGINT');
      await once(second.child, 'exit');
    }
  }, 600_000);
});
