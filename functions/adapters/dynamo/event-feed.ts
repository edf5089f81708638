import { gunzipSync, gzipSync } from 'node:zlib';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { TABLES } from '#contracts/tables';
import type {
  EventFeed,
  FeedAppendOptions,
  FeedEvent,
  FeedPage,
  FeedReadQuery,
  StoredEvent,
} from '#domain/strat/ports';
import { batchGetAll, batchPutAll } from './batch.ts';

/**
 * A block whose writer has not committed it this long after reserving it, plus HELP_AFTER_MS_PER_EVENT for
 * each of its events, is completed by the next writer (from the block record, the same items at the same
 * ids). Shorter than a redelivery takes to come back, longer than a writer takes to write its block (a
 * 5,000-event block takes a few seconds on the local stack under load, under one on DynamoDB): a live writer
 * is not doubled by a helper writing the same items.
 */
const HELP_AFTER_MS = 2_000;
const HELP_AFTER_MS_PER_EVENT = 1;
const HELP_POLL_MS = 25;
/**
 * Guards, block records, and feed items once a newer one exists, are kept 30 days: long after any redelivery
 * could come (the trades stream keeps records 7 days) and far beyond the longest window a request reads (7 days).
 */
const RETENTION_SECONDS = 30 * 86_400;
const MAX_RESERVE_ATTEMPTS = 50;
/** BatchWrite calls in flight at once per table while a block is written: a burst is thousands of items. */
const BLOCK_WRITE_CONCURRENCY = 8;
/**
 * A block record is one item (at most 400 KB): its events, compressed, take at most this much; a batch's
 * events are split into blocks that fit. Alerts of one batch are alike, so a block holds thousands.
 */
const MAX_BLOCK_BYTES = 300_000;
/** The most events a block holds: one burst of alerts, one block (one reservation, one head move). */
const MAX_BLOCK_EVENTS = 5_000;
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

/** A block as its record stores it: the events as gzipped JSON (`packed`), or as a list (older records). */
interface BlockRecord<Body> extends Omit<Block<Body>, 'events'> {
  events?: FeedEvent<Body>[];
  packed?: Uint8Array;
}

/**
 * A feed item. Its time is `atMs`; only the items the `byTime` index must hold carry `triggeredAtMs` (a
 * block's first item without a symbol: its block's latest time; an item with a symbol: its own, for
 * `bySymbol`). Items written before the index was sparse have only `triggeredAtMs`, their own time.
 */
interface FeedItem {
  feed: string;
  id: number;
  atMs?: number;
  triggeredAtMs?: number;
  body: unknown;
}

/** An item as an event: its own time. */
function storedEvent<Body>(item: Record<string, unknown>): StoredEvent<Body> {
  const { id, atMs, triggeredAtMs, body } = item as unknown as FeedItem;
  return { id, triggeredAtMs: (atMs ?? triggeredAtMs) as number, body: body as Body };
}

/** The keys of the events appended after `through` (ids up to it searched so far), for marked events. */
interface AppendedSince {
  through: number | undefined;
  readonly keys: Set<string>;
}

/** A block's events as its record stores them. */
const packEvents = (events: readonly FeedEvent<unknown>[]): Buffer => gzipSync(JSON.stringify(events));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One feed as one partition (`feed`), sorted by `id`, appended a block at a time (ADR 0009). A writer reads the
 * head (the last committed id), reserves the next ids with one conditional put of a block record that holds
 * its events, writes the items (and the once-key records of its unmarked events) in batches, then moves the
 * head. Whoever finds a reserved block past the head completes it first, so ids stay gapless and in commit
 * order, and a reader that stops at the head sees a prefix. A marked event (`madeAfterId`, an alert) is
 * found again among the items after its mark, so it needs no record of its own.
 */
export class DynamoEventFeed<Body> implements EventFeed<Body> {
  /**
   * Whether this feed has read its head record. A known head is trusted for a reservation only then: a block
   * reserved while the feed had no head record could, half written when its writer stopped dead, make the
   * next writer start the head at its last item, past items never written (ids with gaps, events appended
   * twice). So the first block of a feed is always reserved after its head record exists.
   */
  private headRecordSeen = false;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: { readonly feed: string; readonly guards: string },
    private readonly feedName: string,
    private readonly nowMs: () => number = Date.now,
  ) {}

  async append(all: readonly FeedEvent<Body>[], options: FeedAppendOptions = {}): Promise<number> {
    // An event named twice in one call is appended once, where it first comes.
    const named = new Set<string>();
    let pending = all.filter(({ onceKey }) => !named.has(onceKey) && named.add(onceKey));
    // Marked events (madeAfterId) are looked for among the items appended after the lowest mark.
    const since: AppendedSince = {
      through: pending.reduce<number | undefined>(
        (lowest, { madeAfterId }) =>
          madeAfterId === undefined || (lowest !== undefined && lowest <= madeAfterId) ? lowest : madeAfterId,
        undefined,
      ),
      keys: new Set(),
    };
    let appended = 0;
    for (let attempt = 1; pending.length > 0; attempt++) {
      if (attempt > MAX_RESERVE_ATTEMPTS)
        throw new Error(
          `could not reserve ids in feed ${this.feedName} after ${MAX_RESERVE_ATTEMPTS} attempts`,
        );
      // The caller's head first, as it stands: a block another writer reserved since makes the reservation fail.
      const fromKnownHead = attempt === 1 && options.knownHead !== undefined && this.headRecordSeen;
      const lastId = fromKnownHead ? (options.knownHead as number) : await this.committedThrough();
      // Every block up to lastId is complete, so its events' items and once-key records are there to be read,
      // at once with the look past the head: when a block is found there, it is completed and all is read again.
      const [reserved, notAppended] = await Promise.all([
        fromKnownHead ? undefined : this.readBlock(lastId + 1),
        this.notAppended(pending, lastId, since),
      ]);
      if (reserved !== undefined) {
        await this.completeOnceDue(reserved);
        continue;
      }
      pending = notAppended;
      if (pending.length === 0) break;
      const { events, packed } = this.firstBlockOf(pending);
      const block: Block<Body> = {
        key: this.blockKey(lastId + 1),
        start: lastId + 1,
        createdAt: this.nowMs(),
        events,
      };
      if (!(await this.reserve(block, packed))) continue;
      await this.complete(block);
      // Searched through lastId: the block just written holds none of what is left.
      if (since.through === lastId) since.through = lastId + events.length;
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
    const through = head?.lastId ?? (await this.lastIdWithoutHead());
    if (after >= through) return { events: [] };
    const { values: filterValues, ...filter } = filterExpression(query.bodyMatch ?? {});
    const events: StoredEvent<Body>[] = [];
    let examined = 0;
    let lastExaminedId: number | undefined;
    let startKey: Record<string, unknown> | undefined;
    do {
      const output = await this.client.send(
        new QueryCommand({
          ...this.idRange(after + 1, through, filterValues),
          ...filter,
          Limit: Math.min(PAGE_SIZE, query.maxExamined - examined),
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of output.Items ?? []) {
        const event = storedEvent<Body>(item);
        lastExaminedId = event.id;
        if (event.triggeredAtMs >= query.fromMs && query.accept(event)) events.push(event);
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
    if (startKey === undefined) lastExaminedId = through;
    return { events, ...(lastExaminedId === undefined ? {} : { lastExaminedId }) };
  }

  /** The highest committed id, 0 for an empty feed (the head record, one strongly consistent read). */
  async head(): Promise<number> {
    return (await this.readHead())?.lastId ?? this.lastIdWithoutHead();
  }

  /**
   * The last id of a feed that had no head record when read: its last item (a feed appended before blocks),
   * unless a head record appeared meanwhile. A block is only reserved once the head record exists, so with
   * still no head after the last item was read, no block's items were among them.
   */
  private async lastIdWithoutHead(): Promise<number> {
    const lastItemId = await this.lastItemId();
    return (await this.readHead())?.lastId ?? lastItemId;
  }

  /**
   * The lowest id among the first events triggered at or after `fromMs` (the `byTime` index): events of one
   * instant (one trade fires several timeframes) or committed slightly out of trigger order all count. The
   * index holds one item per block, at the block's latest time, so a block with an event at or after
   * `fromMs` is found by its first item (and a future's alert by itself).
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
      const page = (output.Items ?? []).map((item) => storedEvent<Body>(item));
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
      this.headRecordSeen = true;
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
    if (output.Item !== undefined) this.headRecordSeen = true;
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
    const record = output.Item as BlockRecord<Body> | undefined;
    if (record === undefined) return undefined;
    const { packed, events, ...rest } = record;
    return {
      ...rest,
      events: packed === undefined ? (events ?? []) : JSON.parse(gunzipSync(packed).toString('utf8')),
    };
  }

  /**
   * The events no block has appended. A marked event (`madeAfterId`): no item after its mark holds its key
   * (`since` gathers the keys of the items after the lowest mark, through `lastId`, reading only what it has
   * not read). Any other: its once-key record has no id; a record left by a per-event claim of the earlier
   * design, naming the id it meant, counts as appended when the feed holds the event there.
   */
  private async notAppended(
    events: readonly FeedEvent<Body>[],
    lastId: number,
    since: AppendedSince,
  ): Promise<FeedEvent<Body>[]> {
    const keyed = events.filter(({ madeAfterId }) => madeAfterId === undefined);
    const [records] = await Promise.all([
      keyed.length === 0
        ? []
        : batchGetAll(
            this.client,
            this.tables.guards,
            keyed.map((event) => ({ key: this.guardKey(event.onceKey) })),
            { consistent: true },
          ),
      this.searchThrough(lastId, since),
    ]);
    const byKey = new Map(records.map((item) => [item.key as string, item as unknown as KeyRecord]));
    const appended = await Promise.all(
      events.map(async (event) => {
        if (event.madeAfterId !== undefined) return since.keys.has(event.onceKey);
        const record = byKey.get(this.guardKey(event.onceKey));
        if (record?.id !== undefined) return true;
        return record?.intendedId !== undefined && (await this.holds(record.intendedId, event.onceKey));
      }),
    );
    return events.filter((_, index) => !appended[index]);
  }

  /** A Query's keys for the feed's items `from`..`through`, in id order, strongly consistent. */
  private idRange(from: number, through: number, values: Record<string, string | number> = {}) {
    return {
      TableName: this.tables.feed,
      ConsistentRead: true,
      KeyConditionExpression: 'feed = :feed AND id BETWEEN :from AND :through',
      ExpressionAttributeValues: { ':feed': this.feedName, ':from': from, ':through': through, ...values },
    };
  }

  /** Adds the keys of the items after `since.through` up to `lastId` (committed, strongly consistent). */
  private async searchThrough(lastId: number, since: AppendedSince): Promise<void> {
    if (since.through === undefined || since.through >= lastId) return;
    let startKey: Record<string, unknown> | undefined;
    do {
      const output = await this.client.send(
        new QueryCommand({
          ...this.idRange(since.through + 1, lastId),
          ProjectionExpression: 'onceKey',
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of output.Items ?? []) since.keys.add(item.onceKey as string);
      startKey = output.LastEvaluatedKey;
    } while (startKey);
    since.through = lastId;
  }

  /**
   * The longest prefix of `events` (at least one), at most MAX_BLOCK_EVENTS, whose block record stays under
   * the item size limit, and its events as the record stores them: packed once, here.
   */
  private firstBlockOf(events: readonly FeedEvent<Body>[]): { events: FeedEvent<Body>[]; packed: Buffer } {
    let count = Math.min(events.length, MAX_BLOCK_EVENTS);
    let packed = packEvents(events.slice(0, count));
    while (count > 1 && packed.byteLength > MAX_BLOCK_BYTES) {
      count = Math.ceil(count / 2);
      packed = packEvents(events.slice(0, count));
    }
    return { events: events.slice(0, count), packed };
  }

  /**
   * Takes the block's ids: a put that fails when another writer reserved them first. `packed` is its events
   * as firstBlockOf packed them.
   */
  private async reserve(block: Block<Body>, packed: Buffer): Promise<boolean> {
    const { events: _events, ...rest } = block;
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tables.guards,
          Item: { ...rest, packed, expiresAt: this.expiresAt() },
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
   * block is older than its help delay, as when that writer stopped dead), from its record.
   */
  private async completeOnceDue(block: Block<Body>): Promise<void> {
    const end = block.start + block.events.length - 1;
    const helpAfterMs = HELP_AFTER_MS + HELP_AFTER_MS_PER_EVENT * block.events.length;
    for (let waited = 0; this.nowMs() - block.createdAt + waited < helpAfterMs; waited += HELP_POLL_MS) {
      await sleep(HELP_POLL_MS);
      if (((await this.readHead())?.lastId ?? 0) >= end) return;
    }
    await this.complete(block);
  }

  /**
   * Writes the block's items and the once-key records of its unmarked events (absolute values: a writer
   * completing another's block, or the same block twice, writes the same), gives the item before it its
   * expiry, then moves the head past it.
   */
  private async complete(block: Block<Body>): Promise<void> {
    const end = block.start + block.events.length - 1;
    const expiresAt = this.expiresAt();
    // Items and once-key records at once: both are in place before the head moves, which is all a reader or a
    // writer relies on (a writer that sees a key record before its item skips an event the block will write).
    const items = batchPutAll(
      this.client,
      this.tables.feed,
      this.itemsOf(block).map((item) => (item.id < end ? { ...item, expiresAt } : item)),
      BLOCK_WRITE_CONCURRENCY,
    );
    const keys = batchPutAll(
      this.client,
      this.tables.guards,
      block.events.flatMap((event, index) =>
        event.madeAfterId === undefined
          ? [{ key: this.guardKey(event.onceKey), id: block.start + index, expiresAt }]
          : [],
      ),
      BLOCK_WRITE_CONCURRENCY,
    );
    await Promise.all([items, keys, this.expirePredecessor(block.start)]);
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tables.guards,
          Key: { key: this.headKey() },
          UpdateExpression: 'SET lastId = :end',
          // No head yet (a feed appended before blocks, reached from a known head): it starts here.
          ConditionExpression: 'attribute_not_exists(lastId) OR lastId < :end',
          ExpressionAttributeValues: { ':end': end },
        }),
      );
    } catch (error) {
      // Another writer completed the block first.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  /**
   * The block's feed items: each with its own time (`atMs`); in the `byTime` index (`triggeredAtMs`) only the
   * first without a symbol, at the block's latest time, and those with a symbol (the `bySymbol` index sorts
   * by `triggeredAtMs`), at their own. Every event at or after an instant has an index entry at or after it
   * at its id or before: one index copy per block, not per event.
   */
  private itemsOf(block: Block<Body>): (FeedItem & Record<string, unknown>)[] {
    const latestMs = block.events.reduce((latest, { triggeredAtMs }) => Math.max(latest, triggeredAtMs), 0);
    const indexed = block.events.findIndex(({ symbol }) => symbol === undefined);
    return block.events.map((event, index) => ({
      feed: this.feedName,
      id: block.start + index,
      onceKey: event.onceKey,
      ...(event.symbol
        ? { symbol: event.symbol, triggeredAtMs: event.triggeredAtMs }
        : { atMs: event.triggeredAtMs, ...(index === indexed ? { triggeredAtMs: latestMs } : {}) }),
      body: event.body,
    }));
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
