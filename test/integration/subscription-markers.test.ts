import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoSubscriptionStore, trustMarkersOfNewTable } from '#adapters/dynamo/subscription-store';
import { TABLES } from '#contracts/tables';
import { localDocumentClient, localDynamoClient } from '../../scripts/local/dynamo.ts';
import { createTableInput } from '../../scripts/local/tables.ts';
import { useLocalDynamo } from '../support/local-dynamo.ts';

/**
 * The subscription store's topic markers on dynalite (functions/adapters/dynamo/subscription-store.ts): the
 * topics of a moment looked up together, only the marked ones queried, and rows from before markers still
 * found until markers are trusted.
 */
const dynamo = useLocalDynamo();
let tables = 0;
let table: string;
let client: DynamoDBDocumentClient;
const calls: string[] = [];

/** A document client that notes each command's name. */
function countingClient(inner: DynamoDBDocumentClient): DynamoDBDocumentClient {
  return {
    send: (command: { constructor: { name: string } }) => {
      calls.push(command.constructor.name);
      return inner.send(command as never);
    },
  } as unknown as DynamoDBDocumentClient;
}

beforeEach(async () => {
  tables += 1;
  table = `subscriptions-markers-${tables}`;
  await localDynamoClient(dynamo().endpoint).send(
    new CreateTableCommand({ ...createTableInput('subscriptions', TABLES.subscriptions), TableName: table }),
  );
  client = localDocumentClient(dynamo().endpoint);
  calls.length = 0;
});

const subscriber = (connectionId: string) => ({ connectionId, accountId: 'acme', keyId: 'key-1' });
const quotes = (symbol: string) => ({ channel: 'quotes' as const, symbol });
const symbols = Array.from({ length: 300 }, (_, index) => `S${index}`);

describe('subscription topic markers', () => {
  it('on a new table, looks up 300 topics in a few batch reads and queries only the subscribed one', async () => {
    await trustMarkersOfNewTable(client, table);
    await new DynamoSubscriptionStore(client, table).add(subscriber('c1'), [quotes('S7')]);
    const store = new DynamoSubscriptionStore(countingClient(client), table);

    const found = await Promise.all(symbols.map((symbol) => store.subscribersOf(quotes(symbol))));

    expect(found[7]).toEqual([subscriber('c1')]);
    expect(found.filter((subscribers) => subscribers.length > 0)).toHaveLength(1);
    expect(calls.filter((name) => name === 'QueryCommand')).toHaveLength(1);
    // 99 topics and the #markers row to a read: 100 keys, BatchGetItem's limit.
    expect(calls.filter((name) => name === 'BatchGetCommand')).toHaveLength(4);
  });

  it('still finds a subscription written before markers, querying every topic until they are trusted', async () => {
    // A row as the store wrote it before markers: no marker, no #markers row.
    await client.send(
      new PutCommand({ TableName: table, Item: { topic: 'quotes#OLD', ...subscriber('c0') } }),
    );
    await new DynamoSubscriptionStore(client, table).add(subscriber('c1'), [quotes('NEW')]);
    const store = new DynamoSubscriptionStore(countingClient(client), table);

    expect(await store.subscribersOf(quotes('OLD'))).toEqual([subscriber('c0')]);
    expect(await store.subscribersOf(quotes('NEW'))).toEqual([subscriber('c1')]);
  });

  it('trusts markers once every row from before them has expired', async () => {
    let nowMs = Date.parse('2026-11-26T14:30:00Z');
    const store = new DynamoSubscriptionStore(countingClient(client), table, () => nowMs);
    await store.add(subscriber('c1'), [quotes('NEW')]);
    calls.length = 0;
    await store.subscribersOf(quotes('NOBODY'));
    expect(calls).toContain('QueryCommand');

    nowMs += 3 * 3_600_000;
    calls.length = 0;
    expect(await store.subscribersOf(quotes('NOBODY'))).toEqual([]);
    expect(await store.subscribersOf(quotes('NEW'))).toEqual([subscriber('c1')]);
    expect(calls.filter((name) => name === 'QueryCommand')).toHaveLength(1);
  });

  it('never gives the marker as a subscriber, also once every subscriber has left', async () => {
    await trustMarkersOfNewTable(client, table);
    const store = new DynamoSubscriptionStore(client, table);
    await store.add(subscriber('c1'), [quotes('AAPL')]);
    await store.remove('c1', [quotes('AAPL')]);

    expect(await store.subscribersOf(quotes('AAPL'))).toEqual([]);
    expect(await store.listOf('c1')).toEqual([]);
  });
});
