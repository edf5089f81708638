import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  BatchWriteCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import pLimit from 'p-limit';
import { type Backoff, backoffDelayMs } from '#domain/retry/backoff';

/** DynamoDB's own per-call limits. */
const MAX_GET_KEYS = 100;
const MAX_WRITE_ITEMS = 25;
/** Unprocessed keys or items are retried with exponential backoff, this many times at the most. */
const MAX_ATTEMPTS = 8;
const RETRY_BACKOFF: Backoff = { baseMs: 25, capMs: Number.POSITIVE_INFINITY, jitter: 'full' };
/** BatchWrite calls in flight at once for one table (a close's bars and setup rows: dozens of calls). */
const WRITE_CONCURRENCY = 8;

type Item = Record<string, unknown>;

function chunk<T>(values: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < values.length; start += size) chunks.push(values.slice(start, start + size));
  return chunks;
}

const pause = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, backoffDelayMs(attempt, Math.random(), RETRY_BACKOFF)));

/**
 * The items, each key once: the last item of a key where it comes more than once (a batch that repeats a key
 * is refused whole by DynamoDB, and two chunks with one key would race). `keyOf` names an item's key.
 */
export function lastOfEachKey<T>(items: readonly T[], keyOf: (item: T) => string): T[] {
  return [...new Map(items.map((item) => [keyOf(item), item])).values()];
}

/** A key's identity: its attributes in a fixed order. */
const keyIdentity = (key: Item) => JSON.stringify(Object.entries(key).sort(([a], [b]) => (a < b ? -1 : 1)));

/**
 * Reads every key (a key asked for twice is read once), 100 per call in parallel, retrying what DynamoDB
 * leaves unprocessed.
 */
export async function batchGetAll(
  client: DynamoDBDocumentClient,
  table: string,
  keys: readonly Item[],
  options: { consistent?: boolean } = {},
) {
  const pages = await Promise.all(
    chunk(lastOfEachKey(keys, keyIdentity), MAX_GET_KEYS).map(async (keysOfChunk) => {
      const items: Item[] = [];
      let pending: Item[] = keysOfChunk;
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt === MAX_ATTEMPTS)
          throw new Error(`BatchGet on ${table} left ${pending.length} keys unprocessed`);
        if (attempt > 0) await pause(attempt);
        const output: BatchGetCommandOutput = await client.send(
          new BatchGetCommand({
            RequestItems: { [table]: { Keys: pending, ConsistentRead: options.consistent } },
          }),
        );
        items.push(...(output.Responses?.[table] ?? []));
        pending = (output.UnprocessedKeys?.[table]?.Keys as Item[] | undefined) ?? [];
      }
      return items;
    }),
  );
  return pages.flat();
}

type WriteRequest = { PutRequest: { Item: Item } } | { DeleteRequest: { Key: Item } };

/** Sends write requests, 25 per call, a few calls at once, retrying what DynamoDB leaves unprocessed. */
async function batchWriteAll(
  client: DynamoDBDocumentClient,
  table: string,
  requests: readonly WriteRequest[],
  concurrency = WRITE_CONCURRENCY,
) {
  const limit = pLimit(concurrency);
  await Promise.all(
    chunk(requests, MAX_WRITE_ITEMS).map((requestsOfChunk) =>
      limit(async () => {
        let pending = requestsOfChunk;
        for (let attempt = 0; pending.length > 0; attempt++) {
          if (attempt === MAX_ATTEMPTS) {
            throw new Error(`BatchWrite on ${table} left ${pending.length} requests unprocessed`);
          }
          if (attempt > 0) await pause(attempt);
          const output = await client.send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
          pending = (output.UnprocessedItems?.[table] as WriteRequest[] | undefined) ?? [];
        }
      }),
    ),
  );
}

/**
 * Writes every item (absolute values: a retry writes the same), `concurrency` calls at once (default 4). The
 * items must not repeat a key (lastOfEachKey): DynamoDB refuses such a batch.
 */
export function batchPutAll(
  client: DynamoDBDocumentClient,
  table: string,
  items: readonly object[],
  concurrency?: number,
) {
  return batchWriteAll(
    client,
    table,
    items.map((item) => ({ PutRequest: { Item: item as Item } })),
    concurrency,
  );
}

/** Deletes every key (a key named twice once). */
export function batchDeleteAll(client: DynamoDBDocumentClient, table: string, keys: readonly Item[]) {
  return batchWriteAll(
    client,
    table,
    lastOfEachKey(keys, keyIdentity).map((key) => ({ DeleteRequest: { Key: key } })),
  );
}
