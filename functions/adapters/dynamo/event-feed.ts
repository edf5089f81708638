import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { TABLES } from '#contracts/tables';
import type { EventFeed, FeedEvent, FeedPage, FeedReadQuery, StoredEvent } from '#domain/strat/ports';
import { batchGetAll } from './batch.ts';

/**
 * A guard without an id this old belongs to a writer that stopped mid-append: its event is taken over. Longer
 * than any invocation can run (the ingest function's timeout is 60 s), so the writer it names is gone.
 */
const STALE_GUARD_MS = 90_000;
/**
 * Guards, and feed items once a newer one exists, are kept 30 days: long after any redelivery could come (the
 * trades stream keeps records 7 days) and far beyond the longest window a request reads (7 days).
 */
const RETENTION_SECONDS = 30 * 86_400;
const MAX_SEQUENCE_ATTEMPTS = 50;
const PAGE_SIZE = 500;
/** How many of the window's first events (by time) decide where a request starts reading by id. */
const WINDOW_EDGE_EVENTS = 100;
const BY_TIME_INDEX = TABLES.alerts.indexes[0].name;
const BY_SYMBOL_INDEX = TABLES.alerts.indexes[1].name;

/**
 * A read's `bodyMatch` as a DynamoDB filter expression: each field one of its values (`IN`), all fields at
 * once. Names and values are placeholders, so any field name or value is safe.
 */
function filterExpression(match: Readonly<Record<string, readonly (string | number)[]>>): {
  FilterExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  values: Record<string, string | number>;
} {
  const fields = Object.entries(match).filter(([, values]) => values.length > 0);
  if (fields.length === 0) return { values: {} };
  const names: Record<string, string> = { '#body': 'body' };
  const values: Record<string, string | number> = {};
  const conditions = fields.map(([field, wanted], f) => {
    names[`#f${f}`] = field;
    const placeholders = wanted.map((value, v) => {
      values[`:f${f}v${v}`] = value;
      return `:f${f}v${v}`;
    });
    return `#body.#f${f} IN (${placeholders.join(', ')})`;
  });
  return { FilterExpression: conditions.join(' AND '), ExpressionAttributeNames: names, values };
}

/** Another writer is appending the same event right now: the caller retries the batch later. */
export class EventAppendInProgressError extends Error {}

/** The once-key guard of an event: who claimed it, the id it meant to write, and the id it wrote. */
interface Guard {
  key: string;
  owner?: string;
  createdAt: number;
  intendedId?: number;
  id?: number;
}

interface FeedItem {
  feed: string;
  id: number;
  triggeredAtMs: number;
  body: unknown;
}

/**
 * One feed as one partition (`feed`), sorted by `id`. An id is taken only after the previous one was read
 * back committed (a strongly consistent read of the last item, then a put of last + 1 that fails if the id
 * is taken): ids are gapless and increase with commit order, so every reader sees a prefix (ADR 0009). A
 * guard item per natural key makes a redelivered event a no-op.
 */
export class DynamoEventFeed<Body> implements EventFeed<Body> {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: { readonly feed: string; readonly guards: string },
    private readonly feedName: string,
    private readonly nowMs: () => number = Date.now,
  ) {}

  async append(all: readonly FeedEvent<Body>[]): Promise<number> {
    const events = [...new Map(all.map((event) => [event.onceKey, event])).values()];
    if (events.length === 0) return 0;
    const guards = new Map(
      (
        await batchGetAll(
          this.client,
          this.tables.guards,
          events.map((event) => ({ key: this.guardKey(event) })),
          { consistent: true },
        )
      ).map((item) => [item.key as string, item as unknown as Guard]),
    );
    let appended = 0;
    let nextId: number | undefined;
    for (const event of events) {
      const key = this.guardKey(event);
      const claim = await this.claim(key, event, guards.get(key));
      if (claim === undefined) continue;
      nextId = await this.putInSequence(event, nextId ?? (await this.lastId()) + 1, key, claim);
      await this.recordId(key, nextId);
      nextId += 1;
      appended += 1;
    }
    return appended;
  }

  /**
   * From the window's first event (the `byTime` index, one item) or after `sinceId`, whichever is later, the
   * base table in id order (strongly consistent), until `limit` events pass, `maxExamined` were examined or
   * `budgetMs` is spent (after a page): a request reads at most `maxExamined` items whatever the feed's length,
   * for at most about `budgetMs` whatever the load. `bodyMatch` becomes a filter expression, so the items a
   * narrow filter leaves out are examined (and counted) by DynamoDB but never sent. The window's edge is the
   * first event by time; an event committed just before it yet triggered just after (commit order and trigger
   * order differ by the ingest delay, seconds) is the only one such a start can pass over.
   */
  async read(query: FeedReadQuery<Body>): Promise<FeedPage<Body>> {
    const startedMs = this.nowMs();
    const windowStart = await this.firstIdFrom(query.fromMs);
    if (windowStart === undefined) return { events: [] };
    const after = Math.max(query.sinceId ?? 0, windowStart - 1);
    const { values: filterValues, ...filter } = filterExpression(query.bodyMatch ?? {});
    const events: StoredEvent<Body>[] = [];
    let examined = 0;
    let lastExaminedId: number | undefined;
    let startKey: Record<string, unknown> | undefined;
    do {
      const output = await this.client.send(
        new QueryCommand({
          TableName: this.tables.feed,
          ConsistentRead: true,
          KeyConditionExpression: 'feed = :feed AND id > :after',
          ...filter,
          ExpressionAttributeValues: { ':feed': this.feedName, ':after': after, ...filterValues },
          Limit: Math.min(PAGE_SIZE, query.maxExamined - examined),
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of output.Items ?? []) {
        const { id, triggeredAtMs, body } = item as FeedItem;
        lastExaminedId = id;
        const event = { id, triggeredAtMs, body: body as Body };
        if (triggeredAtMs >= query.fromMs && query.accept(event)) events.push(event);
        // Every item before this one was examined: the page's filtered ones too.
        if (events.length === query.limit) return { events, lastExaminedId };
      }
      examined += output.ScannedCount ?? output.Items?.length ?? 0;
      startKey = output.LastEvaluatedKey;
      // Where DynamoDB stopped, the items the filter left out included.
      if (startKey) lastExaminedId = startKey.id as number;
    } while (
      startKey &&
      examined < query.maxExamined &&
      (query.budgetMs === undefined || this.nowMs() - startedMs < query.budgetMs)
    );
    return { events, ...(lastExaminedId === undefined ? {} : { lastExaminedId }) };
  }

  /**
   * The lowest id among the first events triggered at or after `fromMs` (the `byTime` index): events of one
   * instant (one trade fires several timeframes) or committed slightly out of trigger order all count.
   */
  private async firstIdFrom(fromMs: number): Promise<number | undefined> {
    const output = await this.client.send(
      new QueryCommand({
        TableName: this.tables.feed,
        IndexName: BY_TIME_INDEX,
        KeyConditionExpression: 'feed = :feed AND triggeredAtMs >= :from',
        ExpressionAttributeValues: { ':feed': this.feedName, ':from': fromMs },
        ProjectionExpression: 'id',
        Limit: WINDOW_EDGE_EVENTS,
      }),
    );
    const ids = (output.Items ?? []).map((item) => item.id as number);
    return ids.length === 0 ? undefined : Math.min(...ids);
  }

  async readBySymbol(symbol: string, fromMs: number, toMs: number): Promise<StoredEvent<Body>[]> {
    const events: StoredEvent<Body>[] = [];
    await this.eachPage(
      {
        IndexName: BY_SYMBOL_INDEX,
        KeyConditionExpression: 'symbol = :symbol AND triggeredAtMs BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':symbol': symbol, ':from': fromMs, ':to': toMs },
      },
      (page) => {
        events.push(...page);
        return true;
      },
    );
    return events;
  }

  private async eachPage(
    input: Record<string, unknown>,
    onPage: (events: StoredEvent<Body>[]) => boolean,
    pageSize: () => number = () => PAGE_SIZE,
  ): Promise<void> {
    let startKey: Record<string, unknown> | undefined;
    do {
      const output = await this.client.send(
        new QueryCommand({
          TableName: this.tables.feed,
          Limit: pageSize(),
          ExclusiveStartKey: startKey,
          ...input,
        }),
      );
      const page = (output.Items ?? []).map((item) => {
        const { id, triggeredAtMs, body } = item as FeedItem;
        return { id, triggeredAtMs, body: body as Body };
      });
      if (!onPage(page)) return;
      startKey = output.LastEvaluatedKey;
    } while (startKey);
  }

  private guardKey(event: FeedEvent<Body>): string {
    return `${this.feedName}#${event.onceKey}`;
  }

  /**
   * Makes this writer the guard's owner, or says the event needs no append (undefined): it is appended, or
   * was, by a writer that stopped before recording it. A guard without an id is another writer's claim: a fresh
   * one means that writer is at work (the batch is retried later); a stale one, older than any invocation can
   * run, is taken over, conditionally on being the very claim read, so of two writers only one takes it.
   */
  private async claim(
    key: string,
    event: FeedEvent<Body>,
    guard: Guard | undefined,
  ): Promise<string | undefined> {
    if (guard?.id !== undefined) return undefined;
    const owner = randomUUID();
    if (guard === undefined) {
      try {
        await this.client.send(
          new PutCommand({
            TableName: this.tables.guards,
            Item: { key, owner, createdAt: this.nowMs() },
            ConditionExpression: 'attribute_not_exists(#key)',
            ExpressionAttributeNames: { '#key': 'key' },
          }),
        );
        return owner;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        return this.claim(key, event, await this.readGuard(key));
      }
    }
    if (guard.intendedId !== undefined && (await this.holds(guard.intendedId, event.onceKey))) {
      // Its writer stopped after the feed write: record what it did, and append nothing.
      await this.recordId(key, guard.intendedId);
      return undefined;
    }
    if (this.nowMs() - guard.createdAt < STALE_GUARD_MS) throw new EventAppendInProgressError(key);
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tables.guards,
          Key: { key },
          UpdateExpression: 'SET #owner = :owner, createdAt = :now REMOVE intendedId',
          ConditionExpression: 'attribute_not_exists(id) AND createdAt = :seen',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':owner': owner, ':now': this.nowMs(), ':seen': guard.createdAt },
        }),
      );
      return owner;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return this.claim(key, event, await this.readGuard(key));
    }
  }

  /** Completes a guard: the event is in the feed at `id`, and a redelivery appends nothing. */
  private async recordId(key: string, id: number): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tables.guards,
        Key: { key },
        UpdateExpression: 'SET id = :id, expiresAt = :expiresAt',
        ExpressionAttributeValues: {
          ':id': id,
          ':expiresAt': Math.floor(this.nowMs() / 1000) + RETENTION_SECONDS,
        },
      }),
    );
  }

  private async readGuard(key: string): Promise<Guard | undefined> {
    const current = await this.client.send(
      new GetCommand({ TableName: this.tables.guards, Key: { key }, ConsistentRead: true }),
    );
    return current.Item as Guard | undefined;
  }

  /** Whether the feed's item `id` is the event of `onceKey`. */
  private async holds(id: number, onceKey: string): Promise<boolean> {
    const output = await this.client.send(
      new GetCommand({
        TableName: this.tables.feed,
        Key: { feed: this.feedName, id },
        ConsistentRead: true,
        ProjectionExpression: 'onceKey',
      }),
    );
    return output.Item?.onceKey === onceKey;
  }

  /**
   * The retention (docs/storage.md#alerts-and-breaks): an item gets its expiry once a newer item exists, so
   * the newest is never expired and the next id always follows it.
   */
  private async expirePredecessor(id: number): Promise<void> {
    if (id <= 1) return;
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tables.feed,
          Key: { feed: this.feedName, id: id - 1 },
          UpdateExpression: 'SET expiresAt = :expiresAt',
          ConditionExpression: 'attribute_exists(id)',
          ExpressionAttributeValues: { ':expiresAt': Math.floor(this.nowMs() / 1000) + RETENTION_SECONDS },
        }),
      );
    } catch (error) {
      // Expired already (or never there): nothing to keep.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  /** Records the id this owner is about to write, so a writer after it can check the feed there. */
  private async intend(key: string, owner: string, id: number): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tables.guards,
        Key: { key },
        UpdateExpression: 'SET intendedId = :id',
        ConditionExpression: '#owner = :owner',
        ExpressionAttributeNames: { '#owner': 'owner' },
        ExpressionAttributeValues: { ':id': id, ':owner': owner },
      }),
    );
  }

  private async lastId(): Promise<number> {
    const output = await this.client.send(
      new QueryCommand({
        TableName: this.tables.feed,
        ConsistentRead: true,
        KeyConditionExpression: 'feed = :feed',
        ExpressionAttributeValues: { ':feed': this.feedName },
        ScanIndexForward: false,
        Limit: 1,
        ProjectionExpression: 'id',
      }),
    );
    return (output.Items?.[0]?.id as number | undefined) ?? 0;
  }

  /**
   * Puts the event at `candidate`, or after the last id another writer took meanwhile; returns its id. Before
   * each try the id is recorded in the guard (`intendedId`), so a writer that stops after the put leaves a
   * trace the next one checks.
   */
  private async putInSequence(
    event: FeedEvent<Body>,
    candidate: number,
    key: string,
    owner: string,
  ): Promise<number> {
    let id = candidate;
    for (let attempt = 1; attempt <= MAX_SEQUENCE_ATTEMPTS; attempt++) {
      await this.intend(key, owner, id);
      try {
        await this.client.send(
          new PutCommand({
            TableName: this.tables.feed,
            Item: {
              feed: this.feedName,
              id,
              triggeredAtMs: event.triggeredAtMs,
              onceKey: event.onceKey,
              ...(event.symbol ? { symbol: event.symbol } : {}),
              body: event.body,
            },
            ConditionExpression: 'attribute_not_exists(id)',
          }),
        );
        await this.expirePredecessor(id);
        return id;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        id = (await this.lastId()) + 1;
      }
    }
    throw new Error(`could not take an id in feed ${this.feedName} after ${MAX_SEQUENCE_ATTEMPTS} attempts`);
  }
}
