import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { CONSUMER_LEASE } from '#contracts/ingest-consumer';
import type { ConsumerLeaseStore, LeaseItem } from '#use-cases/consumer-lease';

type Update = Pick<
  ConstructorParameters<typeof UpdateCommand>[0],
  'UpdateExpression' | 'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'
>;

/**
 * The ingest consumer's lease in the `consumerLeases` table (functions/contracts/tables.ts): one item per lease,
 * `{ lease, holder, renewedAtMs, positions, takenAt }`, `positions` a map of shard id to sequence number and
 * `takenAt` the take's time for operators. Every write is an UpdateItem conditioned on the item as the caller
 * last saw it or on the caller holding it (functions/use-cases/consumer-lease.ts): a refused condition is
 * `false`, any other error is thrown.
 */
export class DynamoConsumerLeaseStore implements ConsumerLeaseStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly key: string = CONSUMER_LEASE.ingestKey,
  ) {}

  async read(): Promise<LeaseItem | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { lease: this.key }, ConsistentRead: true }),
    );
    if (!Item) return undefined;
    const positions: Record<string, string> = {};
    for (const [shardId, sequenceNumber] of Object.entries(Item.positions ?? {}))
      if (typeof sequenceNumber === 'string') positions[shardId] = sequenceNumber;
    return {
      ...(typeof Item.holder === 'string' ? { holder: Item.holder } : {}),
      renewedAtMs: Number(Item.renewedAtMs),
      positions,
    };
  }

  /** Keeps the stored positions, or starts them empty: `savePositions` sets entries of an existing map. */
  take(holder: string, nowMs: number, seen: LeaseItem | undefined): Promise<boolean> {
    const asSeen =
      seen === undefined
        ? { ConditionExpression: 'attribute_not_exists(lease)', values: {} }
        : seen.holder === undefined
          ? {
              ConditionExpression:
                'attribute_exists(lease) AND attribute_not_exists(holder) AND renewedAtMs = :seenAt',
              values: { ':seenAt': seen.renewedAtMs },
            }
          : {
              ConditionExpression: 'holder = :seenHolder AND renewedAtMs = :seenAt',
              values: { ':seenHolder': seen.holder, ':seenAt': seen.renewedAtMs },
            };
    return this.update({
      UpdateExpression:
        'SET holder = :me, renewedAtMs = :now, takenAt = :takenAt, positions = if_not_exists(positions, :none)',
      ConditionExpression: asSeen.ConditionExpression,
      ExpressionAttributeValues: {
        ':me': holder,
        ':now': nowMs,
        ':takenAt': new Date(nowMs).toISOString(),
        ':none': {},
        ...asSeen.values,
      },
    });
  }

  renew(holder: string, nowMs: number): Promise<boolean> {
    return this.update({
      UpdateExpression: 'SET renewedAtMs = :now',
      ConditionExpression: 'holder = :me',
      ExpressionAttributeValues: { ':me': holder, ':now': nowMs },
    });
  }

  /** One UpdateItem setting each shard's entry by name (shard ids hold `-`, so never a bare path). */
  savePositions(holder: string, positions: ReadonlyMap<string, string>): Promise<boolean> {
    const entries = [...positions];
    if (entries.length === 0)
      return this.update({
        UpdateExpression: 'SET holder = :me',
        ConditionExpression: 'holder = :me',
        ExpressionAttributeValues: { ':me': holder },
      });
    return this.update({
      UpdateExpression: `SET ${entries.map((_, index) => `positions.#s${index} = :v${index}`).join(', ')}`,
      ConditionExpression: 'holder = :me',
      ExpressionAttributeNames: Object.fromEntries(
        entries.map(([shardId], index) => [`#s${index}`, shardId]),
      ),
      ExpressionAttributeValues: {
        ':me': holder,
        ...Object.fromEntries(entries.map(([, sequenceNumber], index) => [`:v${index}`, sequenceNumber])),
      },
    });
  }

  /** A lease another task holds already is left alone. */
  async release(holder: string): Promise<void> {
    await this.update({
      UpdateExpression: 'REMOVE holder',
      ConditionExpression: 'holder = :me',
      ExpressionAttributeValues: { ':me': holder },
    });
  }

  private async update(update: Update): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({ TableName: this.tableName, Key: { lease: this.key }, ...update }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }
}
