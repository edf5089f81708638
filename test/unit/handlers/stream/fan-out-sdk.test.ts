import {
  ApiGatewayManagementApiClient,
  GoneException,
  PostToConnectionCommand,
} from '@aws-sdk/client-apigatewaymanagementapi';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { FirehoseClient, PutRecordBatchCommand } from '@aws-sdk/client-firehose';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  QueryCommand,
} from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiGatewayClientConnections } from '#adapters/api-gateway/client-connections';
import { DynamoConnectionStore } from '#adapters/dynamo/connection-store';
import { documentClientFor } from '#adapters/dynamo/document-client';
import { DynamoSubscriptionStore } from '#adapters/dynamo/subscription-store';
import { FirehoseUsageSink } from '#adapters/firehose/usage-sink';
import { createHandler } from '#handlers/stream/fan-out';
import { instrument } from '../../../support/builders.ts';
import { InMemoryPriceStore } from '../../../support/fakes.ts';
import { credentialsFrom, everyKeyAllowed } from '../../../support/websocket-fakes.ts';

/**
 * The fan-out handler over the production adapters, with the AWS SDK clients mocked (aws-sdk-client-mock):
 * the DynamoDB commands and PostToConnection calls a batch makes, a GoneException's clean-up, a failed post
 * reported as a batch item failure, and the usage rows.
 */
const dynamo = mockClient(DynamoDBDocumentClient);
const management = mockClient(ApiGatewayManagementApiClient);
const firehose = mockClient(FirehoseClient);
afterEach(() => {
  dynamo.reset();
  management.reset();
  firehose.reset();
});

const RECORD_TIME_S = 1_732_635_000;
const NOW_MS = Date.parse('2024-11-26T15:30:02Z');

function handler() {
  const documents = documentClientFor(new DynamoDBClient({ region: 'us-east-1' }));
  const clients = new ApiGatewayClientConnections(
    new ApiGatewayManagementApiClient({ region: 'us-east-1', endpoint: 'https://ws.example.com/live' }),
  );
  return createHandler({
    ports: () => ({
      subscriptions: new DynamoSubscriptionStore(documents, 'subscriptions-table'),
      connections: new DynamoConnectionStore(documents, 'connections-table'),
      clients,
      usage: new FirehoseUsageSink(
        new FirehoseClient({ region: 'us-east-1' }),
        'usage-stream',
        async () => {},
      ),
      nowMs: () => NOW_MS,
      credentials: credentialsFrom(everyKeyAllowed),
    }),
    universe: async () => new Map([['AAPL', instrument('AAPL')]]),
    prices: () => new InMemoryPriceStore(),
    sources: () => new Map([['alerts-table', 'alerts' as const]]),
    nowMs: () => Date.now(),
  });
}

const alertBody = (price: number) => ({
  symbol: 'AAPL',
  timeframe: 'D',
  direction: 'bullish',
  shape: '2D-2U',
  price,
  triggered_at: new Date(RECORD_TIME_S * 1000).toISOString(),
  cc: '2U',
});

/** The alerts table's INSERT of AAPL's in-force alert `id`, triggered at `price`. */
function alertRecord(sequenceNumber: string, id: number, price: number): DynamoDBRecord {
  const item = {
    feed: 'in-force',
    id,
    onceKey: `AAPL#${id}`,
    atMs: RECORD_TIME_S * 1000,
    body: alertBody(price),
  };
  return {
    eventID: `event-${sequenceNumber}`,
    eventName: 'INSERT',
    eventSource: 'aws:dynamodb',
    eventSourceARN:
      'arn:aws:dynamodb:us-east-1:123456789012:table/alerts-table/stream/2024-11-26T00:00:00.000',
    dynamodb: {
      ApproximateCreationDateTime: RECORD_TIME_S,
      SequenceNumber: sequenceNumber,
      NewImage: marshall(item) as Record<string, AttributeValue>,
    },
  };
}

const subscriber = (connectionId: string) => ({
  connectionId,
  accountId: `acct-${connectionId}`,
  keyId: 'k',
});

/** AAPL's in-force alerts have subscribers c1, c2 and c3; c2 is gone; c3 refuses the second message. */
function arrange() {
  // The topic's marker and a trusted #markers row: AAPL is followed.
  dynamo.on(BatchGetCommand).resolves({
    Responses: {
      'subscriptions-table': [
        { topic: '#markers', connectionId: '#', markedFromMs: 0 },
        { topic: 'alerts.in_force#AAPL', connectionId: '#' },
      ],
    },
  });
  dynamo
    .on(QueryCommand, { TableName: 'subscriptions-table', IndexName: undefined })
    .resolves({ Items: ['c1', 'c2', 'c3'].map(subscriber) });
  dynamo
    .on(QueryCommand, { TableName: 'subscriptions-table', IndexName: 'byConnection' })
    .resolves({ Items: [{ topic: 'alerts.in_force#AAPL' }] });
  dynamo.on(DeleteCommand).resolves({});
  dynamo.on(BatchWriteCommand).resolves({});
  management.on(PostToConnectionCommand).resolves({});
  firehose.on(PutRecordBatchCommand).resolves({ FailedPutCount: 0, RequestResponses: [{ RecordId: 'r1' }] });
  management
    .on(PostToConnectionCommand, { ConnectionId: 'c2' })
    .rejects(new GoneException({ message: 'gone', $metadata: {} }));
  let c3Posts = 0;
  management.on(PostToConnectionCommand, { ConnectionId: 'c3' }).callsFake(async () => {
    c3Posts += 1;
    if (c3Posts === 2) throw new Error('LimitExceededException');
    return {};
  });
}

describe('fan-out handler with the AWS SDK clients mocked', () => {
  it('posts each alert to each subscriber, cleans up the gone one, bills the sent ones, reports the failure', async () => {
    arrange();

    const response = await handler()({
      Records: [alertRecord('100', 1, 210.5), alertRecord('200', 2, 210.75)],
    });

    // The second record failed for c3: reported by its sequence number, so Lambda delivers it again.
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: '200' }] });
    const posts = management.commandCalls(PostToConnectionCommand).map(({ args }) => ({
      to: args[0].input.ConnectionId,
      message: JSON.parse(Buffer.from(args[0].input.Data as Uint8Array).toString('utf8')),
    }));
    expect(posts.filter(({ to }) => to === 'c1').map(({ message }) => message)).toEqual([
      { channel: 'alerts.in_force', symbol: 'AAPL', data: { id: 1, ...alertBody(210.5) } },
      { channel: 'alerts.in_force', symbol: 'AAPL', data: { id: 2, ...alertBody(210.75) } },
    ]);
    // c2 answered GoneException once: its row is released only if it still names c2, its subscriptions go.
    expect(posts.filter(({ to }) => to === 'c2')).toHaveLength(1);
    expect(dynamo.commandCalls(DeleteCommand).map(({ args }) => args[0].input)).toEqual([
      {
        TableName: 'connections-table',
        Key: { accountId: 'acct-c2' },
        ConditionExpression: 'connectionId = :connectionId',
        ExpressionAttributeValues: { ':connectionId': 'c2' },
      },
    ]);
    const writes = dynamo.commandCalls(BatchWriteCommand).map(({ args }) => args[0].input.RequestItems ?? {});
    expect(writes.flatMap((items) => items['subscriptions-table'] ?? [])).toEqual([
      { DeleteRequest: { Key: { topic: 'alerts.in_force#AAPL', connectionId: 'c2' } } },
    ]);
    // One ws_message row per message sent: c1 twice, c3 once; none for the gone c2 or the failed post. They
    // go to the Firehose stream as lines of one record, not to DynamoDB.
    const usage = firehose
      .commandCalls(PutRecordBatchCommand)
      .flatMap(({ args }) => args[0].input.Records ?? [])
      .flatMap((record) =>
        Buffer.from(record.Data as Uint8Array)
          .toString('utf8')
          .trim()
          .split('\n'),
      )
      .map((line) => JSON.parse(line));
    expect(firehose.commandCalls(PutRecordBatchCommand)).toHaveLength(1);
    expect(firehose.commandCalls(PutRecordBatchCommand)[0]?.args[0].input.DeliveryStreamName).toBe(
      'usage-stream',
    );
    expect(writes.flatMap((items) => Object.keys(items))).not.toContain('usage-table');
    expect(usage).toHaveLength(3);
    expect(usage).toEqual(
      expect.arrayContaining([
        {
          type: 'ws_message',
          accountId: 'acct-c1',
          keyId: 'k',
          channel: 'alerts.in_force',
          symbol: 'AAPL',
          time: new Date(NOW_MS).toISOString(),
          messageId: `${new Date(RECORD_TIME_S * 1000).toISOString()}#event-100`,
        },
        expect.objectContaining({ accountId: 'acct-c1', messageId: expect.stringMatching(/#event-200$/) }),
        expect.objectContaining({ accountId: 'acct-c3', messageId: expect.stringMatching(/#event-100$/) }),
      ]),
    );
  });

  it('reports the records whose usage rows Firehose kept refusing as batch item failures', async () => {
    arrange();
    firehose.on(PutRecordBatchCommand).resolves({
      FailedPutCount: 1,
      RequestResponses: [{ ErrorCode: 'ServiceUnavailableException', ErrorMessage: 'Slow down.' }],
    });

    const response = await handler()({
      Records: [alertRecord('100', 1, 210.5), alertRecord('200', 2, 210.75)],
    });

    // Every row of both records was refused: both come back, and their rows are written on redelivery.
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: '100' }, { itemIdentifier: '200' }] });
    expect(firehose.commandCalls(PutRecordBatchCommand).length).toBeGreaterThan(1);
  });

  it('reads the topics’ markers and queries the marked one’s subscriptions once per batch, by key, never a Scan', async () => {
    arrange();

    await handler()({ Records: [alertRecord('100', 1, 210.5), alertRecord('200', 2, 210.75)] });

    expect(
      dynamo
        .commandCalls(BatchGetCommand)
        .map(({ args }) => args[0].input.RequestItems?.['subscriptions-table']?.Keys),
    ).toEqual([
      [
        { topic: '#markers', connectionId: '#' },
        { topic: 'alerts.in_force#AAPL', connectionId: '#' },
        // The channel's wildcard: it has no marker (no one follows every symbol), so it is not queried.
        { topic: 'alerts.in_force#*', connectionId: '#' },
      ],
    ]);

    const queries = dynamo.commandCalls(QueryCommand).map(({ args }) => args[0].input);
    expect(queries.filter((query) => query.IndexName === undefined)).toEqual([
      expect.objectContaining({
        TableName: 'subscriptions-table',
        KeyConditionExpression: 'topic = :topic',
        ExpressionAttributeValues: { ':topic': 'alerts.in_force#AAPL' },
      }),
    ]);
    expect(dynamo.calls().map((call) => call.args[0].constructor.name)).not.toContain('ScanCommand');
  });
});
