import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  ScanCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { DynamoConnectionStore } from '#adapters/dynamo/connection-store';
import { documentClientFor } from '#adapters/dynamo/document-client';
import { CONNECTION_ROW_TTL_SECONDS } from '#contracts/websocket';
import type { ConnectionRecord } from '#domain/streaming/ports';

const documents = mockClient(DynamoDBDocumentClient);
const store = new DynamoConnectionStore(documentClientFor(new DynamoDBClient({})), 'connections');

const record = (connectionId: string, connectedAtMs = 1_732_635_000_123): ConnectionRecord => ({
  accountId: 'acme',
  keyId: 'key-1',
  scopes: ['ws:connect', 'prices:read'],
  connectionId,
  connectedAtMs,
});
const row = (connectionId: string) => ({ ...record(connectionId), expiresAt: 1_732_645_800 });

afterEach(() => documents.reset());

describe('DynamoConnectionStore.claim', () => {
  it('puts the account row unconditionally with an expiry and asks for the row it replaced', async () => {
    documents.on(PutCommand).resolves({});

    await store.claim(record('conn-2'));

    expect(documents.commandCalls(PutCommand)[0]?.args[0].input).toEqual({
      TableName: 'connections',
      Item: { ...record('conn-2'), expiresAt: 1_732_635_000 + CONNECTION_ROW_TTL_SECONDS },
      ReturnValues: 'ALL_OLD',
    });
  });

  it('returns the replaced record, without its expiry, when it names another connection', async () => {
    documents.on(PutCommand).resolves({ Attributes: row('conn-1') });

    expect(await store.claim(record('conn-2'))).toEqual(record('conn-1'));
  });

  it('returns undefined when the account had no row', async () => {
    documents.on(PutCommand).resolves({});

    expect(await store.claim(record('conn-2'))).toBeUndefined();
  });

  it('returns undefined when the replaced row named the same connection', async () => {
    documents.on(PutCommand).resolves({ Attributes: row('conn-2') });

    expect(await store.claim(record('conn-2'))).toBeUndefined();
  });
});

describe('DynamoConnectionStore.get', () => {
  it('reads the account row consistently and returns the record without its expiry', async () => {
    documents.on(GetCommand).resolves({ Item: row('conn-1') });

    expect(await store.get('acme')).toEqual(record('conn-1'));
    expect(documents.commandCalls(GetCommand)[0]?.args[0].input).toEqual({
      TableName: 'connections',
      Key: { accountId: 'acme' },
      ConsistentRead: true,
    });
  });

  it('returns undefined when the account has no row', async () => {
    documents.on(GetCommand).resolves({});

    expect(await store.get('acme')).toBeUndefined();
  });
});

describe('DynamoConnectionStore.release', () => {
  it('deletes the account row only while it names the connection and returns true', async () => {
    documents.on(DeleteCommand).resolves({});

    expect(await store.release('acme', 'conn-1')).toBe(true);
    expect(documents.commandCalls(DeleteCommand)[0]?.args[0].input).toEqual({
      TableName: 'connections',
      Key: { accountId: 'acme' },
      ConditionExpression: 'connectionId = :connectionId',
      ExpressionAttributeValues: { ':connectionId': 'conn-1' },
    });
  });

  it('returns false when the row names another connection (ConditionalCheckFailedException)', async () => {
    documents
      .on(DeleteCommand)
      .rejects(new ConditionalCheckFailedException({ message: 'no', $metadata: {} }));

    expect(await store.release('acme', 'conn-1')).toBe(false);
  });

  it('rethrows any other error', async () => {
    documents.on(DeleteCommand).rejects(new Error('throttled'));

    await expect(store.release('acme', 'conn-1')).rejects.toThrow('throttled');
  });
});

describe('DynamoConnectionStore.list', () => {
  it('pages through a Scan of the table, one page of records per result page', async () => {
    documents
      .on(ScanCommand)
      .resolvesOnce({ Items: [row('conn-1'), row('conn-2')], LastEvaluatedKey: { accountId: 'beta' } })
      .resolvesOnce({ Items: [row('conn-3')] });

    const pages: ConnectionRecord[][] = [];
    for await (const page of store.list()) pages.push(page);

    expect(pages).toEqual([[record('conn-1'), record('conn-2')], [record('conn-3')]]);
    expect(documents.commandCalls(ScanCommand).map((call) => call.args[0].input)).toEqual([
      { TableName: 'connections', ExclusiveStartKey: undefined },
      { TableName: 'connections', ExclusiveStartKey: { accountId: 'beta' } },
    ]);
  });

  it('yields one empty page for an empty table', async () => {
    documents.on(ScanCommand).resolves({});

    const pages: ConnectionRecord[][] = [];
    for await (const page of store.list()) pages.push(page);

    expect(pages).toEqual([[]]);
  });
});
