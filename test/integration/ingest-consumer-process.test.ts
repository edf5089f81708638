import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  CONSUMER_LEASE,
  INGEST_CONSUMER_ENTRY,
  INGEST_CONSUMER_ENV,
  INGEST_CONSUMER_TASKS,
} from '#contracts/ingest-consumer';
import { USAGE_DELIVERY } from '#contracts/usage';
import { CALLBACK_URL_ENV } from '#contracts/websocket';
import { encodeTradeRecord } from '#domain/market-data/trade-records';
import { consumerProcessEnvironment, LOCAL_CONSUMER_ARN } from '../../scripts/local/consumer-process.ts';
import { localDocumentClient } from '../../scripts/local/dynamo.ts';
import { LocalKinesisEndpoint } from '../../scripts/local/kinesis-endpoint.ts';
import { localTableName } from '../../scripts/local/tables.ts';
import { MANAGEMENT_PATH } from '../../scripts/local/ws-gateway.ts';

import { startTestStack, type TestStack } from '../support/local-stack.ts';
import { spawnScript, waitForOutput } from '../support/processes.ts';
import { TestWebSocketClient } from '../support/ws-client.ts';

const SHARDS = ['shardId-000000000000', 'shardId-000000000001'];
/** A Friday afternoon of the regular session, well before the wall clock the process reads. */
const SESSION_MS = Date.parse('2024-11-22T15:00:00Z');

let local: TestStack;
let kinesis: LocalKinesisEndpoint;
const children: ChildProcess[] = [];

beforeAll(async () => {
  // The stack's tables, REST API and dead-letter queue; its own ingest never sees these trades.
  local = await startTestStack();
});
afterAll(async () => {
  await local.stop();
});
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await kinesis?.close();
  // The next test's stream starts its sequence numbers again: no lease, no positions.
  await localDocumentClient(local.stack.dynamoEndpoint).send(
    new DeleteCommand({
      TableName: localTableName('consumerLeases'),
      Key: { lease: CONSUMER_LEASE.ingestKey },
    }),
  );
});

/** The consumer's process as its Fargate task runs it: configured by the environment alone. */
function startConsumer(extra: Readonly<Record<string, string>> = {}): ChildProcess {
  const child = spawnScript(INGEST_CONSUMER_ENTRY, [], {
    ...consumerProcessEnvironment(local.stack, kinesis.url),
    POWERTOOLS_LOG_LEVEL: 'INFO',
    ...extra,
  });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  outputs.set(child, () => output);
  return child;
}

/** Everything a consumer process wrote to stdout so far. */
const outputs = new Map<ChildProcess, () => string>();

/** A window that failed, in a process's log: its work ran on unguarded, or not at all. */
const FAILED_WINDOW = /a window of \d+ records failed/;

const trade = (symbol: string, price: number, second: number) => ({
  partitionKey: symbol,
  data: encodeTradeRecord({
    symbol,
    price,
    size: 10,
    timestamp: SESSION_MS + second * 1000,
    tradeId: `${symbol}-${second}`,
  }),
});

async function leaseItem() {
  const { Item } = await localDocumentClient(local.stack.dynamoEndpoint).send(
    new GetCommand({
      TableName: localTableName('consumerLeases'),
      Key: { lease: CONSUMER_LEASE.ingestKey },
      ConsistentRead: true,
    }),
  );
  return Item as { holder?: string; positions: Record<string, string> } | undefined;
}

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const latest = async (symbols: string) =>
  (await local.get(`/prices/latest?symbols=${symbols}`)).body.items as { symbol: string; price: number }[];

describe('functions/containers/ingest-consumer.ts, on a Kinesis endpoint and DynamoDB', () => {
  it('takes the lease, ingests every shard, saves their positions, and hands over to the standby at SIGTERM', async () => {
    kinesis = await LocalKinesisEndpoint.start({ shards: SHARDS });
    const [, aaplLast] = kinesis.put(SHARDS[0] as string, [trade('AAPL', 190, 1), trade('AAPL', 191, 2)]);
    const [msftLast] = kinesis.put(SHARDS[1] as string, [trade('MSFT', 410, 1)]);

    const first = startConsumer();
    await waitForOutput(first, /took the lease/);
    const second = startConsumer();
    await waitForOutput(second, /standing by for the lease/);

    await eventually(
      () => latest('AAPL,MSFT'),
      (items) => items.length === 2 && items[0]?.price === 191,
      'prices of the first holder',
    );
    const held = await eventually(
      leaseItem,
      (item) =>
        item?.positions[SHARDS[0] as string] === aaplLast &&
        item?.positions[SHARDS[1] as string] === msftLast,
      'positions saved',
    );
    expect(held?.holder).toMatch(/\//);

    // SIGTERM: the holder commits, hands the lease over and exits 0; the standby takes it at once (not after
    // the 5 s takeover) and reads on from the saved positions.
    const takenOver = waitForOutput(second, /took the lease/);
    first.kill('SIGTERM');
    const [code] = await once(first, 'exit');
    expect(code).toBe(0);
    expect(outputs.get(first)?.()).not.toMatch(FAILED_WINDOW);
    await takenOver;
    // The new holder's subscriptions, one a shard, each after the position the old one saved.
    await eventually(
      async () => kinesis.subscribeCalls.length,
      (calls) => calls === 4,
      'the new holder subscribed',
    );
    const resumed = kinesis.subscribeCalls.slice(2);
    expect(Object.fromEntries(resumed.map((call) => [call.shardId, call.startingPosition]))).toEqual({
      [SHARDS[0] as string]: { Type: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: aaplLast },
      [SHARDS[1] as string]: { Type: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: msftLast },
    });
    expect(resumed.every(({ consumerArn }) => consumerArn === LOCAL_CONSUMER_ARN)).toBe(true);

    kinesis.put(SHARDS[0] as string, [trade('AAPL', 193, 3)]);
    await eventually(
      () => latest('AAPL'),
      (items) => items[0]?.price === 193,
      'a price ingested by the new holder',
    );
    const handedOver = await leaseItem();
    expect(handedOver?.holder).not.toBe(held?.holder);
    expect(outputs.get(second)?.()).not.toMatch(FAILED_WINDOW);
  }, 90_000);

  it('renews each subscription Kinesis ends after the last record it delivered, reading nothing twice', async () => {
    kinesis = await LocalKinesisEndpoint.start({ shards: [SHARDS[0] as string], eventsPerSubscription: 3 });
    const consumer = startConsumer();
    await waitForOutput(consumer, /took the lease/);
    for (let second = 10; second < 16; second++) {
      kinesis.put(SHARDS[0] as string, [trade('NVDA', 100 + second, second)]);
      await new Promise((resolve) => setTimeout(resolve, 120));
    }
    await eventually(
      () => latest('NVDA'),
      (items) => items[0]?.price === 115,
      'the last trade ingested',
    );
    // Renewed several times, each after the last record read: every record was sent once.
    expect(kinesis.subscribeCalls.length).toBeGreaterThan(2);
    expect(kinesis.recordsSent).toBe(6);
    const positions = kinesis.subscribeCalls.map(({ startingPosition }) => startingPosition.SequenceNumber);
    expect(positions.slice(1).every((position, index) => (positions[index] ?? '') <= (position ?? ''))).toBe(
      true,
    );
    const candles = (await local.get('/candles/NVDA?interval=1d')).body as { bars: { volume: number }[] };
    // Six trades of 10, each applied once across the renewed subscriptions.
    expect(candles.bars.map(({ volume }) => volume)).toEqual([60]);
    consumer.kill('SIGTERM');
    const [code] = await once(consumer, 'exit');
    expect(code).toBe(0);
  }, 90_000);

  it('a holder killed outright is taken over by the standby once its lease has not moved for 5 s', async () => {
    kinesis = await LocalKinesisEndpoint.start({ shards: [SHARDS[0] as string] });
    const [saved] = kinesis.put(SHARDS[0] as string, [trade('AMD', 140, 20)]);
    const holder = startConsumer();
    await waitForOutput(holder, /took the lease/);
    const standby = startConsumer();
    await waitForOutput(standby, /standing by for the lease/);
    await eventually(leaseItem, (item) => item?.positions[SHARDS[0] as string] === saved, 'position saved');

    const takenOver = waitForOutput(standby, /took the lease/);
    const killedAt = Date.now();
    holder.kill('SIGKILL');
    kinesis.put(SHARDS[0] as string, [trade('AMD', 141, 21)]);
    await takenOver;

    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(CONSUMER_LEASE.takeOverAfterMs - 1_000);
    await eventually(
      () => latest('AMD'),
      (items) => items[0]?.price === 141,
      'the trade after the crash ingested by the new holder',
    );
    expect(kinesis.subscribeCalls.at(-1)?.startingPosition).toEqual({
      Type: 'AFTER_SEQUENCE_NUMBER',
      SequenceNumber: saved,
    });
  }, 90_000);

  it('posts a window’s quotes to a subscribed client through its post workers, with their usage rows', async () => {
    kinesis = await LocalKinesisEndpoint.start({ shards: [SHARDS[0] as string] });
    const usage = await startFakeFirehose();
    const client = TestWebSocketClient.connect(local.stack.wsUrl, { 'X-API-Key': local.stack.demoKey });
    await client.opened();
    await client.request(
      { op: 'subscribe', topics: [{ channel: 'quotes', symbols: ['INTC'] }] },
      'subscribed',
    );
    try {
      const consumer = startConsumer({
        // The local gateway's @connections API and a delivery stream: the stack streams, so the posts go
        // through the worker threads (functions/containers/quote-post-worker.ts).
        [CALLBACK_URL_ENV]: `${new URL(local.stack.restUrl).origin}${MANAGEMENT_PATH}`,
        [USAGE_DELIVERY.streamEnv]: 'usage',
        AWS_ENDPOINT_URL_FIREHOSE: usage.url,
        // As the task of the hours outside the session runs it.
        [INGEST_CONSUMER_ENV.postWorkers]: String(INGEST_CONSUMER_TASKS.offSession.postWorkers),
      });
      await waitForOutput(consumer, /took the lease/);
      const from = client.messages.length;

      kinesis.put(SHARDS[0] as string, [trade('INTC', 21, 30)]);

      const quote = await client.next((message) => message.channel === 'quotes', { from });
      expect(quote).toMatchObject({ channel: 'quotes', symbol: 'INTC', data: { symbol: 'INTC', price: 21 } });
      await eventually(
        async () => usage.rows,
        (rows) => rows >= 1,
        'the quote’s usage row',
      );
    } finally {
      client.close();
      await usage.close();
    }
  }, 90_000);
  it('refuses a post workers setting that is not a whole number of at least 1, in one line, exit 1', async () => {
    kinesis = await LocalKinesisEndpoint.start({ shards: [SHARDS[0] as string] });
    for (const setting of ['six', '0', '1.5']) {
      const consumer = startConsumer({ [INGEST_CONSUMER_ENV.postWorkers]: setting });
      let errors = '';
      consumer.stderr?.on('data', (chunk) => {
        errors += chunk;
      });
      const [code] = (await once(consumer, 'exit')) as [number];
      expect(code).toBe(1);
      const output = `${outputs.get(consumer)?.() ?? ''}${errors}`;
      expect(output).toContain(`${INGEST_CONSUMER_ENV.postWorkers} must be a whole number of at least 1`);
      expect(output).not.toMatch(/took the lease|\n\s+at /);
    }
  });

  it('reads a shard that splits to its end, then both its children from their oldest record', async () => {
    const [parent, left, right] = ['shardId-000000000000', 'shardId-000000000001', 'shardId-000000000002'];
    kinesis = await LocalKinesisEndpoint.start({ shards: [parent] });
    kinesis.put(parent, [trade('ORCL', 150, 50)]);
    const consumer = startConsumer();
    await waitForOutput(consumer, /took the lease/);
    await eventually(
      () => latest('ORCL'),
      (items) => items[0]?.price === 150,
      'the parent’s trade',
    );

    // The stream reshards as an on-demand stream does under load; later trades go to the children.
    kinesis.split(parent, [left, right]);
    kinesis.put(left, [trade('ORCL', 151, 51)]);
    kinesis.put(right, [trade('ADBE', 500, 51)]);

    await eventually(
      () => latest('ADBE,ORCL'),
      (items) => items.find(({ symbol }) => symbol === 'ORCL')?.price === 151 && items.length === 2,
      'the children’s trades',
    );
    const children = kinesis.subscribeCalls.filter(({ shardId }) => shardId !== parent);
    expect(children.map(({ shardId, startingPosition }) => [shardId, startingPosition.Type]).sort()).toEqual([
      [left, 'TRIM_HORIZON'],
      [right, 'TRIM_HORIZON'],
    ]);
    await eventually(
      leaseItem,
      (item) => item?.positions[left] !== undefined && item?.positions[right] !== undefined,
      'the children’s positions saved',
    );
    expect(outputs.get(consumer)?.()).not.toMatch(FAILED_WINDOW);
    consumer.kill('SIGTERM');
    const [code] = await once(consumer, 'exit');
    expect(code).toBe(0);
  }, 90_000);
});

/** A stand-in of Firehose's PutRecordBatch: counts the records (the usage rows' batches) it is given. */
async function startFakeFirehose() {
  let rows = 0;
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const records = (JSON.parse(body || '{}') as { Records?: unknown[] }).Records ?? [];
      rows += records.length;
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(
        JSON.stringify({
          FailedPutCount: 0,
          Encrypted: false,
          RequestResponses: records.map((_, index) => ({ RecordId: `record-${index}` })),
        }),
      );
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get rows() {
      return rows;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
