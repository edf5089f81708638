import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * Write units as DynamoDB bills them, counted on the client: each item written costs one unit per started KB
 * of its size (an update: of the item after it), and each global secondary index that holds a copy of the
 * item costs as much again (every index here projects ALL). Sizes follow DynamoDB's rules closely enough for
 * a KB count: attribute names and string values in UTF-8 bytes, a number about one byte per two digits plus
 * one, a map or list three bytes plus its entries.
 */
export function itemBytes(value: unknown): number {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (value instanceof Uint8Array) return value.byteLength;
  if (typeof value === 'number')
    return Math.ceil(String(Math.abs(value)).replace(/[.-]/g, '').length / 2) + 1;
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, entry) => sum + 1 + itemBytes(entry), 0);
  if (value instanceof Set) return [...value].reduce((sum: number, entry) => sum + itemBytes(entry), 0);
  return (
    3 +
    Object.entries(value as Record<string, unknown>).reduce(
      (sum, [name, entry]) => sum + Buffer.byteLength(name, 'utf8') + itemBytes(entry),
      0,
    )
  );
}

/** The item itself, its top-level attributes (no map overhead): what DynamoDB bills. */
export function topLevelBytes(item: Record<string, unknown>): number {
  return itemBytes(item) - 3;
}

export const writeUnitsOf = (item: Record<string, unknown>) =>
  Math.max(1, Math.ceil(topLevelBytes(item) / 1024));

export interface WriteCount {
  /** Write requests sent (a BatchWrite counts once). */
  requests: number;
  /** Items written. */
  items: number;
  /** Write units on the tables themselves. */
  units: number;
  /** Write units of the index copies. */
  indexUnits: number;
}

/**
 * A document client that counts its writes' units per table. `indexesOf(table, item)` says how many indexes
 * hold a copy of an item of that table. Updates are sent asking for the item after them (ALL_NEW), to size it.
 */
export function countingWrites(
  client: DynamoDBDocumentClient,
  indexesOf: (table: string, item: Record<string, unknown>) => number,
): { client: DynamoDBDocumentClient; count: WriteCount } {
  const count: WriteCount = { requests: 0, items: 0, units: 0, indexUnits: 0 };
  const written = (table: string, item: Record<string, unknown>) => {
    const units = writeUnitsOf(item);
    count.items += 1;
    count.units += units;
    count.indexUnits += units * indexesOf(table, item);
  };
  const counting = new Proxy(client, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      return async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
        const name = command.constructor.name;
        const input = command.input;
        if (name === 'UpdateCommand' && input.ReturnValues === undefined) input.ReturnValues = 'ALL_NEW';
        const output = (await target.send(command as Parameters<typeof client.send>[0])) as Record<
          string,
          unknown
        >;
        if (name === 'PutCommand') {
          count.requests += 1;
          written(input.TableName as string, input.Item as Record<string, unknown>);
        } else if (name === 'UpdateCommand') {
          count.requests += 1;
          written(input.TableName as string, (output.Attributes ?? input.Key) as Record<string, unknown>);
        } else if (name === 'BatchWriteCommand') {
          count.requests += 1;
          const requests = input.RequestItems as Record<
            string,
            { PutRequest?: { Item: Record<string, unknown> } }[]
          >;
          const unprocessed = (output.UnprocessedItems ?? {}) as Record<string, unknown[]>;
          for (const [table, list] of Object.entries(requests)) {
            const left = unprocessed[table]?.length ?? 0;
            for (const request of list.slice(0, list.length - left))
              if (request.PutRequest) written(table, request.PutRequest.Item);
          }
        }
        return output;
      };
    },
  });
  return { client: counting, count };
}
