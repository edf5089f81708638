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
import { batchGetAll, batchPutAll } from './batch.ts';

/**
 * A block whose writer has not committed it this long after reserving it is completed by the next writer
 * (from the block record, the same items at the same ids). Shorter than a redelivery takes to come back, longer
 * than a writer takes to write a few hundred items.
 */
const HELP_AFTER_MS = 2_000;
const HELP_POLL_MS = 25;
/**
 * Guards, block records, and feed items once a newer one exists, are kept 30 days: long after any redelivery
 * could come (the trades stream keeps records 7 days) and far beyond the longest window a request reads (7 days).
 */
const RETENTION_SECONDS = 30 * 86_400;
const MAX_RESERVE_ATTEMPTS = 50;
/** BatchWrite calls in flight at once per table while a block is written: a burst is thousands of items. */
const BLOCK_WRITE_CONCURRENCY = 8;
/** A block record is one item (at most 400 KB): a batch's events are split into blocks of at most this much. */
const MAX_BLOCK_BYTES = 300_000;
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

/** The once-key record of an event: the id it was appended at (older records may hold a claim without one). */
interface KeyRecord {
  key: string;
  id?: number;
  /** Left by the per-event claims this adapter made before blocks (ADR 0009): the id that claim meant. */
  intendedId?: number;
}

/** The feed's head: every block up to `lastId` is complete (items and once-key records written). */
interface Head {
  key: string;
  lastId: number;
}

/** A reserved run of ids `start`..`start + events.length - 1` and the events that take them, in order. */
interface Block<Body> {
  key: string;
  start: number;
  createdAt: number;
  events: FeedEvent<Body>[];
}

interface FeedItem {
  feed: string;
  id: number;
  triggeredAtMs: number;
  body: unknown;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One feed as one partition (`feed`), sorted by `id`, appended a block at a time (ADR 0009). A writer reads the
 * head (the last committed id), reserves the next ids with one conditional put of a block record that holds
 * its events, writes the items and their once-key records in batches, then moves the head. Whoever finds a
 * reserved block past the head completes it first, so ids stay gapless and in commit order, and a reader that
 * stops at the head sees a prefix.
 */
export class DynamoEventFeed<Body> implements EventFeed<Body> {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: { readonly feed: string; readonly guards: string },
    private readonly feedName: string,
    private readonly nowMs: () => number = Date.now,
  ) {}

  async append(all: readonly FeedEvent<Body>[]): Promise<number> {
    // An event named twice in one call is appended once, where it first comes.
    const named = new Set<string>();
    let pending = all.filter(({ onceKey }) => !named.has(onceKey) && named.add(onceKey));
    let appended = 0;
    for (let attempt = 1; pending.length > 0; attempt++) {
      if (attempt > MAX_RESERVE_ATTEMPTS)
        throw new Error(
          `could not reserve ids in feed ${this.feedName} after ${MAX_RESERVE_ATTEMPTS} attempts`,
        );
      const lastId = await this.committedThrough();
      // Every block up to lastId is complete, so its events' once-key records are there to be read, at once
      // with the look past the head: when a block is found there, it is completed and all is read again.
      const [reserved, notAppended] = await Promise.all([
        this.readBlock(lastId + 1),
        this.notAppended(pending),
      ]);
      if (reserved !== undefined) {
        await this.completeOnceDue(reserved);
        continue;
      }
      pending = notAppended;
      const events = this.firstBlockOf(pending);
      if (events.length === 0) break;
      const block: Block<Body> = {
        key: this.blockKey(lastId + 1),
        start: lastId + 1,
        createdAt: this.nowMs(),
        events,
      };
      if (!(await this.reserve(block))) continue;
      await this.complete(block);
      appended += events.length;
      pending = pending.slice(events.length);
    }
    return appended;
  }

  /**
   * From the window's first event (the `byTime` index, one item) or after `sinceId`, whichever is later, up to
   * the committed head, the base table in id order (strongly consistent), until `limit` events pass,
   * `maxExamined` were examined or `budgetMs` is spent (after a page): a request reads at most `maxExamined`
   * items whatever the feed's length, for at most about `budgetMs` whatever the load. `bodyMatch` becomes a
   * filter expression, so the items a narrow filter leaves out are examined (and counted) by DynamoDB but never
   * sent. The window's edge is the first event by time; an event committed just before it yet triggered just
   * after (commit order and trigger order differ by the ingest delay, seconds) is the only one such a start
   * can pass over.
   */
  async read(query: FeedReadQuery<Body>): Promise<FeedPage<Body>> {
    const startedMs = this.nowMs();
    const [windowStart, head] = await Promise.all([this.firstIdFrom(query.fromMs), this.readHead()]);
    if (windowStart === undefined) return { events: [] };
    const after = Math.max(query.sinceId ?? 0, windowStart - 1);
    // Items past the head belong to a block still being written, perhaps with holes: never shown yet.
    const through = head?.lastId ?? Number.MAX_SAFE_INTEGER;
    if (after >= through) return { events: [] };
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
          KeyConditionExpression: 'feed = :feed AND id BETWEEN :from AND :through',
          ...filter,
          ExpressionAttributeValues: {
            ':feed': this.feedName,
            ':from': after + 1,
            ':through': through,
            ...filterValues,
          },
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
    // Read to the head: every event through it was examined, those the filter left out at the end included.
    if (startKey === undefined && head !== undefined) lastExaminedId = through;
    return { events, ...(lastExaminedId === undefined ? {} : { lastExaminedId }) };
  }

  /** The highest committed id, 0 for an empty feed (the head record, one strongly consistent read). */
  async head(): Promise<number> {
    return (await this.readHead())?.lastId ?? this.lastItemId();
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

  private guardKey(onceKey: string): string {
    return `${this.feedName}#${onceKey}`;
  }

  /** Distinct from every once key (`<feed>#...`). */
  private headKey(): string {
    return `${this.feedName}@head`;
  }

  private blockKey(start: number): string {
    return `${this.feedName}@block@${start}`;
  }

  /** The last id whose block is complete; a feed without a head (appended before blocks) starts at its last item. */
  private async committedThrough(): Promise<number> {
    const head = await this.readHead();
    if (head !== undefined) return head.lastId;
    const lastId = await this.lastItemId();
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tables.guards,
          Item: { key: this.headKey(), lastId },
          ConditionExpression: 'attribute_not_exists(#key)',
          ExpressionAttributeNames: { '#key': 'key' },
        }),
      );
      return lastId;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return (await this.readHead())?.lastId ?? lastId;
    }
  }

  private async readHead(): Promise<Head | undefined> {
    const output = await this.client.send(
      new GetCommand({ TableName: this.tables.guards, Key: { key: this.headKey() }, ConsistentRead: true }),
    );
    return output.Item as Head | undefined;
  }

  private async readBlock(start: number): Promise<Block<Body> | undefined> {
    const output = await this.client.send(
      new GetCommand({
        TableName: this.tables.guards,
        Key: { key: this.blockKey(start) },
        ConsistentRead: true,
      }),
    );
    return output.Item as Block<Body> | undefined;
  }

  /**
   * The events no block has appended: their once-key record has no id. A record left by a per-event claim of
   * the earlier design, naming the id it meant, counts as appended when the feed holds the event there.
   */
  private async notAppended(events: readonly FeedEvent<Body>[]): Promise<FeedEvent<Body>[]> {
    const records = new Map(
      (
        await batchGetAll(
          this.client,
          this.tables.guards,
          events.map((event) => ({ key: this.guardKey(event.onceKey) })),
          { consistent: true },
        )
      ).map((item) => [item.key as string, item as unknown as KeyRecord]),
    );
    const appended = await Promise.all(
      events.map(async (event) => {
        const record = records.get(this.guardKey(event.onceKey));
        if (record?.id !== undefined) return true;
        return record?.intendedId !== undefined && (await this.holds(record.intendedId, event.onceKey));
      }),
    );
    return events.filter((_, index) => !appended[index]);
  }

  /** The longest prefix of `events` whose block record stays under the item size limit (at least one event). */
  private firstBlockOf(events: readonly FeedEvent<Body>[]): FeedEvent<Body>[] {
    let bytes = 0;
    let count = 0;
    for (const event of events) {
      bytes += JSON.stringify(event).length + 64;
      if (count > 0 && bytes > MAX_BLOCK_BYTES) break;
      count += 1;
    }
    return events.slice(0, count);
  }

  /** Takes the block's ids: a put that fails when another writer reserved them first. */
  private async reserve(block: Block<Body>): Promise<boolean> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tables.guards,
          Item: { ...block, expiresAt: this.expiresAt() },
          ConditionExpression: 'attribute_not_exists(#key)',
          ExpressionAttributeNames: { '#key': 'key' },
        }),
      );
      return true;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return false;
    }
  }

  /**
   * Completes another writer's block: once its writer has had time to finish (the head moved past it, or the
   * block is older than HELP_AFTER_MS, as when that writer stopped dead), from its record.
   */
  private async completeOnceDue(block: Block<Body>): Promise<void> {
    const end = block.start + block.events.length - 1;
    for (let waited = 0; this.nowMs() - block.createdAt + waited < HELP_AFTER_MS; waited += HELP_POLL_MS) {
      await sleep(HELP_POLL_MS);
      if (((await this.readHead())?.lastId ?? 0) >= end) return;
    }
    await this.complete(block);
  }

  /**
   * Writes the block's items and once-key records (absolute values: a writer completing another's block, or
   * the same block twice, writes the same), gives the item before it its expiry, then moves the head past it.
   */
  private async complete(block: Block<Body>): Promise<void> {
    const end = block.start + block.events.length - 1;
    const expiresAt = this.expiresAt();
    // Items and once-key records at once: both are in place before the head moves, which is all a reader or a
    // writer relies on (a writer that sees a key record before its item skips an event the block will write).
    const items = batchPutAll(
      this.client,
      this.tables.feed,
      block.events.map((event, index) => ({
        feed: this.feedName,
        id: block.start + index,
        triggeredAtMs: event.triggeredAtMs,
        onceKey: event.onceKey,
        ...(event.symbol ? { symbol: event.symbol } : {}),
        body: event.body,
        ...(block.start + index < end ? { expiresAt } : {}),
      })),
      BLOCK_WRITE_CONCURRENCY,
    );
    const keys = batchPutAll(
      this.client,
      this.tables.guards,
      block.events.map((event, index) => ({
        key: this.guardKey(event.onceKey),
        id: block.start + index,
        expiresAt,
      })),
      BLOCK_WRITE_CONCURRENCY,
    );
    await Promise.all([items, keys, this.expirePredecessor(block.start)]);
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tables.guards,
          Key: { key: this.headKey() },
          UpdateExpression: 'SET lastId = :end',
          ConditionExpression: 'lastId < :end',
          ExpressionAttributeValues: { ':end': end },
        }),
      );
    } catch (error) {
      // Another writer completed the block first.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  private expiresAt(): number {
    return Math.floor(this.nowMs() / 1000) + RETENTION_SECONDS;
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
   * the newest is never expired.
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
          ExpressionAttributeValues: { ':expiresAt': this.expiresAt() },
        }),
      );
    } catch (error) {
      // Expired already (or never there): nothing to keep.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  private async lastItemId(): Promise<number> {
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
}
