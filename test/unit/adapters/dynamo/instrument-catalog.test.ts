import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DynamoDBDocumentClient,
  QueryCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { documentClientFor } from '#adapters/dynamo/document-client';
import { DynamoInstrumentCatalog } from '#adapters/dynamo/instrument-catalog';
import { instrument } from '../../../support/builders.ts';

const documents = mockClient(DynamoDBDocumentClient);
const catalog = new DynamoInstrumentCatalog(documentClientFor(new DynamoDBClient({})), 'instruments');
const item = (symbol: string) => ({ ...instrument(symbol), listing: 'all' });

afterEach(() => documents.reset());

describe('DynamoInstrumentCatalog.list', () => {
  it('reads exactly `limit` items from the sorted listing index when there is no search', async () => {
    documents
      .on(QueryCommand)
      .resolves({ Items: [item('A'), item('AA')], LastEvaluatedKey: { symbol: 'AA' } });

    expect((await catalog.list({ limit: 2 })).map(({ symbol }) => symbol)).toEqual(['A', 'AA']);

    const calls = documents.commandCalls(QueryCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.args[0].input).toMatchObject({
      TableName: 'instruments',
      IndexName: 'byListing',
      KeyConditionExpression: 'listing = :listing',
      ExpressionAttributeValues: { ':listing': 'all' },
      Limit: 2,
    });
  });

  it('pages on with a search until it has `limit` matches, returning no listing attribute', async () => {
    documents
      .on(QueryCommand)
      .resolvesOnce({ Items: [item('A'), item('AAPL'), item('MSFT')], LastEvaluatedKey: { symbol: 'MSFT' } })
      .resolvesOnce({ Items: [item('PAAS'), item('TAP'), item('ZZ')], LastEvaluatedKey: { symbol: 'ZZ' } });

    const found = await catalog.list({ search: 'AP', limit: 2 });

    expect(found).toEqual([instrument('AAPL'), instrument('TAP')]);
    const calls = documents.commandCalls(QueryCommand);
    expect(calls).toHaveLength(2);
    expect(calls[1]?.args[0].input.ExclusiveStartKey).toEqual({ symbol: 'MSFT' });
  });

  it('starts after the `after` symbol with a key condition, for the next page', async () => {
    documents.on(QueryCommand).resolves({ Items: [item('MSFT')] });
    await catalog.list({ limit: 2, after: 'AAPL' });
    expect(documents.commandCalls(QueryCommand)[0]?.args[0].input).toMatchObject({
      KeyConditionExpression: 'listing = :listing AND symbol > :after',
      ExpressionAttributeValues: { ':listing': 'all', ':after': 'AAPL' },
    });
  });

  it('stops at the end of the listing', async () => {
    documents.on(QueryCommand).resolves({ Items: [item('A')] });
    expect(await catalog.list({ search: 'Q', limit: 50 })).toEqual([]);
    expect(documents.commandCalls(QueryCommand)).toHaveLength(1);
  });
});

describe('DynamoInstrumentCatalog.getMany', () => {
  it('asks for at most 100 keys per BatchGet and retries unprocessed keys', async () => {
    const symbols = Array.from({ length: 250 }, (_, index) => `S${index}`);
    documents.on(BatchGetCommand).callsFake((input) => {
      const keys = input.RequestItems.instruments.Keys as { symbol: string }[];
      const unprocessed = keys[0]?.symbol === 'S0' ? keys.slice(-1) : [];
      const served = keys.slice(0, keys.length - unprocessed.length);
      return {
        Responses: { instruments: served.map(({ symbol }) => item(symbol)) },
        UnprocessedKeys: unprocessed.length > 0 ? { instruments: { Keys: unprocessed } } : {},
      };
    });

    const found = await catalog.getMany(symbols);

    expect(found.map(({ symbol }) => symbol).sort()).toEqual([...symbols].sort());
    const sizes = documents
      .commandCalls(BatchGetCommand)
      .map((call) => call.args[0].input.RequestItems?.instruments?.Keys?.length);
    expect(sizes.sort()).toEqual([1, 100, 100, 50].sort());
  });
});

describe('DynamoInstrumentCatalog.putAll', () => {
  it('writes 25 items per BatchWrite with the listing partition', async () => {
    documents.on(BatchWriteCommand).resolves({});
    await catalog.putAll(Array.from({ length: 30 }, (_, index) => instrument(`S${index}`)));
    const calls = documents.commandCalls(BatchWriteCommand);
    expect(calls.map((call) => call.args[0].input.RequestItems?.instruments?.length)).toEqual([25, 5]);
    expect(calls[0]?.args[0].input.RequestItems?.instruments?.[0]).toEqual({
      PutRequest: { Item: { ...instrument('S0'), listing: 'all' } },
    });
  });
});

describe('DynamoInstrumentCatalog.list of the whole universe', () => {
  it('asks for pages of at most 1,000 items, whatever the limit', async () => {
    documents.on(QueryCommand).resolves({ Items: [item('A')] });
    await catalog.list({ limit: Number.MAX_SAFE_INTEGER });
    expect(documents.commandCalls(QueryCommand)[0]?.args[0].input.Limit).toBe(1000);
  });
});
