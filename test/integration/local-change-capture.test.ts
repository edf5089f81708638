import { BatchWriteCommand, DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type CapturedChange,
  type LocalDynamo,
  localDocumentClient,
  localDynamoClient,
  startLocalDynamo,
} from '../../scripts/local/dynamo.ts';
import { ensureTables } from '../../scripts/local/tables.ts';

/**
 * dynalite has no Streams (docs/architecture.md#local-stack-the-same-code-on-embedded-parts): its process
 * reports each committed write to a captured table. `requestCount` answers after every change reported before
 * it, so once it resolves the writes made so far have all arrived.
 */
let dynamo: LocalDynamo;
const changes: CapturedChange[] = [];

beforeAll(async () => {
  dynamo = await startLocalDynamo({
    port: 0,
    captureTables: ['states', 'alerts'],
    onChange: (change) => changes.push(change),
  });
  await ensureTables(localDynamoClient(dynamo.endpoint));
});
afterAll(async () => {
  await dynamo.stop();
});
beforeEach(() => {
  changes.length = 0;
});

const documents = () => localDocumentClient(dynamo.endpoint);

/** The changes of every write answered so far. */
async function settledChanges(): Promise<CapturedChange[]> {
  await dynamo.requestCount();
  return [...changes];
}

describe('capturing committed writes in the local DynamoDB', () => {
  it('captures a PutItem of a new item as a change with only the new image', async () => {
    await documents().send(new PutCommand({ TableName: 'states', Item: { symbol: 'PUT', price: 1 } }));

    expect(await settledChanges()).toEqual([
      { table: 'states', newImage: { symbol: { S: 'PUT' }, price: { N: '1' } } },
    ]);
  });

  it('captures a PutItem over an item with both images', async () => {
    const client = documents();
    await client.send(new PutCommand({ TableName: 'states', Item: { symbol: 'OVER', price: 1 } }));
    await client.send(new PutCommand({ TableName: 'states', Item: { symbol: 'OVER', size: 5 } }));

    expect((await settledChanges())[1]).toEqual({
      table: 'states',
      oldImage: { symbol: { S: 'OVER' }, price: { N: '1' } },
      newImage: { symbol: { S: 'OVER' }, size: { N: '5' } },
    });
  });

  it('captures an UpdateItem as a MODIFY with both images', async () => {
    const client = documents();
    await client.send(new PutCommand({ TableName: 'states', Item: { symbol: 'UPD', price: 1, volume: 10 } }));
    await client.send(
      new UpdateCommand({
        TableName: 'states',
        Key: { symbol: 'UPD' },
        UpdateExpression: 'SET price = :price ADD volume :more',
        ExpressionAttributeValues: { ':price': 2, ':more': 5 },
      }),
    );

    expect((await settledChanges())[1]).toEqual({
      table: 'states',
      oldImage: { symbol: { S: 'UPD' }, price: { N: '1' }, volume: { N: '10' } },
      newImage: { symbol: { S: 'UPD' }, price: { N: '2' }, volume: { N: '15' } },
    });
  });

  it('captures an UpdateItem of a missing item as an insert', async () => {
    await documents().send(
      new UpdateCommand({
        TableName: 'states',
        Key: { symbol: 'UPSERT' },
        UpdateExpression: 'SET price = :price',
        ExpressionAttributeValues: { ':price': 3 },
      }),
    );

    expect(await settledChanges()).toEqual([
      { table: 'states', newImage: { symbol: { S: 'UPSERT' }, price: { N: '3' } } },
    ]);
  });

  it('captures a DeleteItem as a REMOVE with only the old image, and a delete of nothing not at all', async () => {
    const client = documents();
    await client.send(new PutCommand({ TableName: 'states', Item: { symbol: 'DEL', price: 4 } }));
    await client.send(new DeleteCommand({ TableName: 'states', Key: { symbol: 'DEL' } }));
    await client.send(new DeleteCommand({ TableName: 'states', Key: { symbol: 'DEL' } }));

    expect((await settledChanges()).slice(1)).toEqual([
      { table: 'states', oldImage: { symbol: { S: 'DEL' }, price: { N: '4' } } },
    ]);
  });

  it('captures a BatchWriteItem as one change per item, of captured tables only', async () => {
    const client = documents();
    await client.send(new PutCommand({ TableName: 'states', Item: { symbol: 'B2', price: 1 } }));
    await client.send(
      new BatchWriteCommand({
        RequestItems: {
          states: [
            { PutRequest: { Item: { symbol: 'B1', price: 1 } } },
            { DeleteRequest: { Key: { symbol: 'B2' } } },
          ],
          alerts: [{ PutRequest: { Item: { feed: 'alerts', id: 1, symbol: 'B1' } } }],
          ledgers: [{ PutRequest: { Item: { symbol: 'B1', watermark: 1 } } }],
        },
      }),
    );

    const batch = (await settledChanges()).slice(1);
    expect(batch).toHaveLength(3);
    expect(batch).toEqual(
      expect.arrayContaining([
        { table: 'states', newImage: { symbol: { S: 'B1' }, price: { N: '1' } } },
        { table: 'states', oldImage: { symbol: { S: 'B2' }, price: { N: '1' } } },
        { table: 'alerts', newImage: { feed: { S: 'alerts' }, id: { N: '1' }, symbol: { S: 'B1' } } },
      ]),
    );
  });

  it('captures nothing for a failed conditional put', async () => {
    const client = documents();
    await client.send(new PutCommand({ TableName: 'states', Item: { symbol: 'COND', price: 1 } }));
    const conditional = client.send(
      new PutCommand({
        TableName: 'states',
        Item: { symbol: 'COND', price: 2 },
        ConditionExpression: 'attribute_not_exists(symbol)',
      }),
    );
    await expect(conditional).rejects.toThrow(/conditional/i);

    expect(await settledChanges()).toHaveLength(1);
  });

  it('captures nothing for a write that changes nothing', async () => {
    const client = documents();
    await client.send(new PutCommand({ TableName: 'states', Item: { symbol: 'SAME', price: 1 } }));
    await client.send(new PutCommand({ TableName: 'states', Item: { price: 1, symbol: 'SAME' } }));

    expect(await settledChanges()).toHaveLength(1);
  });

  it('captures nothing for tables it was not asked to, even those with a stream on AWS', async () => {
    const client = documents();
    await client.send(new PutCommand({ TableName: 'bars', Item: { series: 'UNC#1m', time: 1 } }));
    await client.send(new PutCommand({ TableName: 'ledgers', Item: { symbol: 'UNC', tfc: 'up' } }));
    await client.send(new DeleteCommand({ TableName: 'ledgers', Key: { symbol: 'UNC' } }));

    expect(await settledChanges()).toEqual([]);
  });

  it('reports the changes of one key in commit order, each old image the previous new image', async () => {
    const client = documents();
    const writes = 30;
    await Promise.all(
      Array.from({ length: writes }, () =>
        client.send(
          new UpdateCommand({
            TableName: 'states',
            Key: { symbol: 'ORDER' },
            UpdateExpression: 'ADD n :one',
            ExpressionAttributeValues: { ':one': 1 },
          }),
        ),
      ),
    );

    const counts = (await settledChanges()).map((change) => ({
      from: change.oldImage?.n?.N,
      to: change.newImage?.n?.N,
    }));
    expect(counts).toEqual(
      Array.from({ length: writes }, (_, index) => ({
        from: index === 0 ? undefined : String(index),
        to: String(index + 1),
      })),
    );
  });
});
