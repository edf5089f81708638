import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchGetCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type LocalDynamo,
  localDocumentClient,
  localDynamoClient,
  startLocalDynamo,
} from '../../scripts/local/dynamo.ts';
import { ensureTables, localTableName } from '../../scripts/local/tables.ts';

/**
 * The local DynamoDB on disk reads each item in its own thread, at the moment of the request, and opens
 * LevelDB with a larger write buffer (scripts/local/dynalite-server.mjs): a read sees every write answered
 * before it, whether the item is still in LevelDB's memory or already in its files, and after a restart.
 */
const STATES = localTableName('states');
let dataDir: string;
let dynamo: LocalDynamo | undefined;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'mda-local-dynamo-'));
});
afterEach(async () => {
  await dynamo?.stop();
  dynamo = undefined;
  await rm(dataDir, { recursive: true, force: true });
});

async function start(): Promise<ReturnType<typeof localDocumentClient>> {
  dynamo = await startLocalDynamo({ port: 0, path: dataDir });
  await ensureTables(localDynamoClient(dynamo.endpoint));
  return localDocumentClient(dynamo.endpoint);
}

const readSymbol = async (documents: ReturnType<typeof localDocumentClient>, symbol: string) =>
  (await documents.send(new GetCommand({ TableName: STATES, Key: { symbol }, ConsistentRead: true }))).Item;

describe('reads of the local DynamoDB on disk', () => {
  it('sees a write answered just before, and finds no item that was never written', async () => {
    const documents = await start();
    await documents.send(new PutCommand({ TableName: STATES, Item: { symbol: 'AAPL', version: 1 } }));

    expect(await readSymbol(documents, 'AAPL')).toEqual({ symbol: 'AAPL', version: 1 });
    expect(await readSymbol(documents, 'NONE')).toBeUndefined();
  });

  it('judges a condition against the write just before it', async () => {
    const documents = await start();
    await documents.send(new PutCommand({ TableName: STATES, Item: { symbol: 'MSFT', version: 1 } }));
    await documents.send(
      new PutCommand({
        TableName: STATES,
        Item: { symbol: 'MSFT', version: 2 },
        ConditionExpression: 'version = :seen',
        ExpressionAttributeValues: { ':seen': 1 },
      }),
    );

    const stale = documents.send(
      new PutCommand({
        TableName: STATES,
        Item: { symbol: 'MSFT', version: 2 },
        ConditionExpression: 'version = :seen',
        ExpressionAttributeValues: { ':seen': 1 },
      }),
    );

    await expect(stale).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    expect(await readSymbol(documents, 'MSFT')).toEqual({ symbol: 'MSFT', version: 2 });
  });

  it('keeps 16 MB of writes in memory, then reads items from its files, before and after a restart', async () => {
    const padding = 'x'.repeat(120_000);
    const symbols = Array.from({ length: 200 }, (_, index) => `S${String(index).padStart(3, '0')}`);
    const tableFiles = async () => (await readdir(dataDir)).filter((file) => file.endsWith('.ldb'));
    let documents = await start();
    const write = async (batch: readonly string[]) => {
      for (const symbol of batch) {
        await documents.send(new PutCommand({ TableName: STATES, Item: { symbol, padding } }));
      }
    };
    // About 10 MB: LevelDB's default 4 MB buffer would have had to flush a table file (`.ldb`) by now.
    await write(symbols.slice(0, 80));
    expect(await tableFiles()).toEqual([]);
    // About 24 MB in all: past the 16 MB buffer, flushed in the background.
    await write(symbols.slice(80));
    await vi.waitFor(async () => expect((await tableFiles()).length).toBeGreaterThan(0), { timeout: 10_000 });
    // Its own loop, not batchGetAll (functions/adapters/dynamo/batch.ts): with 120 KB items dynalite answers
    // each BatchGetItem in parts, more times than the adapter's bounded retries allow.
    const readAll = async () => {
      const found = new Set<string>();
      for (let start = 0; start < symbols.length; start += 100) {
        const keys = symbols.slice(start, start + 100).map((symbol) => ({ symbol }));
        let request: Record<string, { Keys: Record<string, unknown>[] }> | undefined = {
          [STATES]: { Keys: keys },
        };
        while (request && Object.keys(request).length > 0) {
          const output = await documents.send(new BatchGetCommand({ RequestItems: request }));
          for (const item of output.Responses?.[STATES] ?? []) {
            if (item.padding === padding) found.add(String(item.symbol));
          }
          request = output.UnprocessedKeys as typeof request;
        }
      }
      return found;
    };

    expect((await readAll()).size).toBe(symbols.length);
    await dynamo?.stop();
    documents = await start();
    expect((await readAll()).size).toBe(symbols.length);
    expect(await readSymbol(documents, 'S000')).toEqual({ symbol: 'S000', padding });
  });
});
