import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import DataLoader from 'dataloader';
import { TABLES } from '#contracts/tables';
import { CONNECTION_ROW_TTL_SECONDS, MARKER_MEMORY_MS } from '#contracts/websocket';
import type { Subscriber, Subscription, SubscriptionStore } from '#domain/streaming/ports';
import { subscriptionOfTopic, topicKey } from '#domain/streaming/topics';
import { batchDeleteAll, batchGetAll, batchPutAll } from './batch.ts';
import { keepBounded } from './bounded-map.ts';
import { RATE_TOPIC_PREFIX } from './message-rate.ts';

const BY_CONNECTION_INDEX = TABLES.subscriptions.indexes[0].name;

/** A topic's marker row: its `connectionId` (API Gateway's ids are base64, never `#`). */
export const TOPIC_MARKER = '#';
/** The row saying from when every subscribed topic has its marker (distinct from topics and `#rate#` rows). */
export const MARKERS_TOPIC = '#markers';
/** Topics whose markers are read in one BatchGetItem: its limit of 100 keys, one of them the #markers row. */
const TOPICS_PER_READ = 99;

/** Marked topics remembered at most (about 100 bytes each): a universe's quotes topics and then some. */
const MARKED_TOPICS_REMEMBERED = 20_000;

interface MarkersRow {
  /** From this instant, every subscription row's topic has a marker: rows without one have expired. */
  readonly markedFromMs: number;
}

const MARKERS_KEY = { topic: MARKERS_TOPIC, connectionId: TOPIC_MARKER } as const;

/** A row's `batched` attribute (`batch` is a DynamoDB reserved word) as the port's `batch` flag. */
const batchOf = (row: Record<string, unknown>) => (row.batched === true ? { batch: true as const } : {});

const markersRow = (markedFromMs: number) => ({ ...MARKERS_KEY, markedFromMs }) satisfies MarkersRow;

/**
 * For a table created empty (the local stack's): no subscription without a marker can exist, so markers are
 * trusted from the start.
 */
export async function trustMarkersOfNewTable(client: DynamoDBDocumentClient, tableName: string) {
  await client.send(new PutCommand({ TableName: tableName, Item: markersRow(0) }));
}

/**
 * Subscription rows keyed by topic, then connection: a record's subscribers are one Query per topic
 * (docs/architecture.md#fan-out-dynamodb-streams-to-the-connections); `byConnection` lists a connection's
 * rows when it leaves.
 *
 * Each subscribed topic also has a marker row (`connectionId` `#`), written with its subscriptions and
 * expiring no earlier than any of them, so the topics of the events at hand are first looked up together,
 * 99 to a BatchGetItem, and only the marked ones are queried: a burst of alerts for thousands of symbols
 * nobody follows costs a few batch reads, not a Query each (docs/storage.md#subscription-markers). Rows written
 * before markers existed have none: until the `#markers` row says they have all expired (the row TTL after
 * the first marker was written), every topic is queried as before.
 */
export class DynamoSubscriptionStore implements SubscriptionStore {
  /** The lookups of one moment batched together: the fan-out asks for an event's topics all at once. */
  private readonly subscribers = new DataLoader<string, Subscriber[]>(
    (topics) => this.subscribersOfTopics(topics),
    { cache: false, maxBatchSize: TOPICS_PER_READ },
  );
  private markersRowWritten = false;
  /** Topics whose marker was read, and when: the oldest first out (MARKER_MEMORY_MS). */
  private readonly markedAt = new Map<string, number>();

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly nowMs: () => number = Date.now,
  ) {}

  async add(subscriber: Subscriber, subscriptions: readonly Subscription[]): Promise<void> {
    const expiresAt = Math.floor(this.nowMs() / 1000) + CONNECTION_ROW_TTL_SECONDS;
    const { connectionId, accountId, keyId } = subscriber;
    // One row per topic: a message may name a channel and symbol twice (the last says whether it is
    // batched), and a batch must not repeat a key.
    const topics = new Map(subscriptions.map((subscription) => [topicKey(subscription), subscription.batch]));
    if (topics.size === 0) return;
    await this.writeMarkersRow();
    await batchPutAll(
      this.client,
      this.tableName,
      [...topics].flatMap(([topic, batch]) => [
        { topic, connectionId, accountId, keyId, expiresAt, ...(batch ? { batched: true } : {}) },
        { topic, connectionId: TOPIC_MARKER, expiresAt },
      ]),
    );
  }

  /**
   * Once per process: the `#markers` row, if none exists yet. Subscriptions written before markers may still
   * be there for a row's lifetime, so markers are trusted only from then on.
   */
  private async writeMarkersRow(): Promise<void> {
    if (this.markersRowWritten) return;
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: markersRow(this.nowMs() + CONNECTION_ROW_TTL_SECONDS * 1000),
          ConditionExpression: 'attribute_not_exists(topic)',
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
    this.markersRowWritten = true;
  }

  async remove(connectionId: string, subscriptions: readonly Subscription[]): Promise<void> {
    const topics = new Set(subscriptions.map(topicKey));
    await batchDeleteAll(
      this.client,
      this.tableName,
      [...topics].map((topic) => ({ topic, connectionId })),
    );
  }

  async listOf(connectionId: string): Promise<Subscription[]> {
    const items = await this.queryAll({
      IndexName: BY_CONNECTION_INDEX,
      KeyConditionExpression: 'connectionId = :connectionId',
      ExpressionAttributeValues: { ':connectionId': connectionId },
      ProjectionExpression: 'topic, batched',
    });
    return items
      .filter((item) => !(item.topic as string).startsWith(RATE_TOPIC_PREFIX))
      .map((item) => ({
        ...subscriptionOfTopic(item.topic as string),
        ...batchOf(item),
      }));
  }

  subscribersOf(subscription: Subscription): Promise<Subscriber[]> {
    return this.subscribers.load(topicKey(subscription));
  }

  /**
   * Each topic's subscribers: the marked topics queried (all of them while markers are not trusted yet), a
   * topic whose marker was read within MARKER_MEMORY_MS without reading it again.
   */
  private async subscribersOfTopics(topics: readonly string[]): Promise<Subscriber[][]> {
    const nowMs = this.nowMs();
    const remembered = (topic: string) => nowMs - (this.markedAt.get(topic) ?? -Infinity) < MARKER_MEMORY_MS;
    const marked = new Set(topics.filter(remembered));
    const unknown = topics.filter((topic) => !marked.has(topic));
    if (unknown.length > 0) {
      const rows = await batchGetAll(this.client, this.tableName, [
        MARKERS_KEY,
        ...unknown.map((topic) => ({ topic, connectionId: TOPIC_MARKER })),
      ]);
      const markers = rows.find((row) => row.topic === MARKERS_TOPIC) as MarkersRow | undefined;
      const trusted = markers !== undefined && markers.markedFromMs <= nowMs;
      const found = new Set(rows.map((row) => row.topic as string));
      for (const topic of unknown) {
        if (found.has(topic)) keepBounded(this.markedAt, topic, nowMs, MARKED_TOPICS_REMEMBERED);
        if (!trusted || found.has(topic)) marked.add(topic);
      }
    }
    return Promise.all(topics.map((topic) => (marked.has(topic) ? this.queryTopic(topic) : [])));
  }

  private async queryTopic(topic: string): Promise<Subscriber[]> {
    const items = await this.queryAll({
      KeyConditionExpression: 'topic = :topic',
      ExpressionAttributeValues: { ':topic': topic },
      ProjectionExpression: 'connectionId, accountId, keyId, batched',
    });
    return items
      .filter(({ connectionId }) => connectionId !== TOPIC_MARKER)
      .map((item) => ({
        connectionId: item.connectionId as string,
        accountId: item.accountId as string,
        keyId: item.keyId as string,
        ...batchOf(item),
      }));
  }

  private async queryAll(
    query: Omit<ConstructorParameters<typeof QueryCommand>[0], 'TableName'>,
  ): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({ ...query, TableName: this.tableName, ExclusiveStartKey: startKey }),
      );
      items.push(...(page.Items ?? []));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return items;
  }
}
