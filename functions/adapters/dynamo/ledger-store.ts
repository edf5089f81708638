import { createHash } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { LatestPrice } from '#domain/market-data/bars';
import type { SymbolLedger } from '#domain/market-data/ledger';
import type { LedgerStore, VersionedLedger } from '#domain/market-data/ports';
import { batchDeleteAll, batchGetAll, batchPutAll, lastOfEachKey } from './batch.ts';
import { keepBounded } from './bounded-map.ts';
import {
  decodeLedger,
  decodeRecentBars,
  encodeLedger,
  encodeRecentBars,
  type RecentBars,
} from './ledger-codec.ts';
import { WriteWindow } from './write-window.ts';

/**
 * Recent-bar snapshots kept per process as stored (immutable, so never stale): about 1.5 KB each, where
 * decoded they would take about 25 KB (the clock tick reads every symbol's).
 */
const SNAPSHOT_CACHE_SIZE = 10_000;
/**
 * Recent bars kept decoded, by snapshot key, the most recently used last. A writer reads the same symbols
 * batch after batch, and a symbol's snapshot changes only when a bar of 15 minutes or more completes, so each
 * snapshot is decoded once instead of at every read. Every read still gets a copy of its own (a reader may
 * change what it read; the store keeps what was put), which takes a few microseconds where decoding takes
 * about fifty. Bounded by count, about 25 KB each: a shard's symbols fit, and a reader of every symbol in turn
 * (the clock tick) decodes as it would without.
 */
const DECODED_RECENT_CACHE_SIZE = 2_000;
/** Reads of a ledger whose snapshot a newer commit removed between the two reads, before giving up. */
const READ_ATTEMPTS = 5;
/**
 * How long a snapshot's put (or a replaced one's delete) waits for others to share its BatchWriteItem: a
 * 15-minute close completes a bar of every symbol of a batch, and their snapshots go 25 to a call instead of
 * one call each.
 */
const SNAPSHOT_WRITES = { windowMs: 2, maxBatch: 25 } as const;

interface SnapshotItem {
  readonly symbol: string;
  readonly data: Uint8Array;
}

/**
 * A snapshot's key in the ledgers table: never a symbol (symbols have no `#`), unique to the commit that wrote
 * it (its version) and to its content (a digest), so two writers racing for one version never write the same
 * key with different bars, and removing an older snapshot never removes a newer one.
 */
function snapshotKey(symbol: string, version: number, digest: string): string {
  return `${symbol}#recent#${version}#${digest}`;
}

const digestOf = (recent: RecentBars) =>
  createHash('sha256').update(JSON.stringify(recent)).digest('base64url').slice(0, 12);

const digestIn = (key: string) => key.slice(key.lastIndexOf('#') + 1);

const hasBars = (recent: RecentBars | undefined): recent is RecentBars =>
  recent !== undefined && Object.values(recent).some((bars) => bars !== undefined && bars.length > 0);

/**
 * One item per symbol, replaced whole on each batch, guarded by its version, read strongly consistent: a
 * writer never folds onto a stale copy. The item is `{ symbol, version, data, price?, recentKey? }`:
 * - `data`: the ledger without its latest price and Strat recent bars, and the pending writes, encoded
 *   (ledger-codec.ts);
 * - `price`: the latest price as a plain map, which DynamoPriceStore reads without decoding `data`
 *   (docs/adr/0023-latest-price-in-the-ledger.md);
 * - `recentKey`: the recent bars, which change only when a bar of 15 minutes or more completes, live in a
 *   snapshot item of their own (immutable), written before the ledger that names it and removed after the
 *   ledger that replaces it (docs/storage.md#ledgers). A batch that completes no such bar writes the small
 *   item only.
 *
 * Items of earlier layouts still read: an encoded ledger holding its recent bars or its price, and a ledger
 * stored as attributes before the encoding; their next commit stores them as above.
 */
export class DynamoLedgerStore<Pending = unknown> implements LedgerStore<Pending> {
  /**
   * Snapshot bytes by key, the oldest first out. A Map, not lru-cache: REST handlers read ledgers, and their
   * bundles stay within 300 KB (docs/adr/0013-lean-lambda-bundles.md).
   */
  private readonly snapshots = new Map<string, Uint8Array>();
  /** Recent bars by snapshot key, decoded, the least recently used first out. */
  private readonly decodedRecent = new Map<string, RecentBars>();
  /** The snapshot key each decoded `recent` was read from or written as: an unchanged one is not written again. */
  private readonly keyOfRecent = new WeakMap<RecentBars, string>();
  /**
   * Per symbol, the newest version read or written here and its snapshot key: removed once a commit replaces
   * it. Only ever moves forward: a reader whose answer left DynamoDB before a commit (the clock tick reads
   * every ledger, sharing this store with the ingest) must not make the commit's predecessor look unknown.
   */
  private readonly lastSeen = new Map<string, { version: number; recentKey?: string }>();
  /** Deletions of replaced snapshots, running since the last settled(). */
  private cleanups: Promise<void>[] = [];
  /**
   * Snapshot puts: unconditional (each key is unique to its content), so they batch. A key put twice at once
   * (two writers of one version with the same bars) holds the same bytes: it is written once.
   */
  private readonly snapshotPuts = new WriteWindow<SnapshotItem>(
    (items) =>
      batchPutAll(
        this.client,
        this.tableName,
        lastOfEachKey(items, (item) => item.symbol),
      ),
    SNAPSHOT_WRITES,
  );
  private readonly snapshotDeletes = new WriteWindow<string>(
    (keys) =>
      batchDeleteAll(
        this.client,
        this.tableName,
        keys.map((symbol) => ({ symbol })),
      ),
    SNAPSHOT_WRITES,
  );

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    /** How many snapshots' recent bars it keeps decoded (DECODED_RECENT_CACHE_SIZE; tests set a few). */
    private readonly decodedRecentLimit = DECODED_RECENT_CACHE_SIZE,
  ) {}

  async get(symbol: string): Promise<VersionedLedger<Pending> | undefined> {
    return (await this.getMany([symbol])).get(symbol);
  }

  async getMany(symbols: readonly string[]): Promise<Map<string, VersionedLedger<Pending>>> {
    const found = new Map<string, VersionedLedger<Pending>>();
    let wanted = [...new Set(symbols)];
    for (let attempt = 1; wanted.length > 0; attempt++) {
      if (attempt > READ_ATTEMPTS) {
        throw new Error(`the recent bars of ${wanted.join(', ')} kept changing while being read`);
      }
      const items = await batchGetAll(
        this.client,
        this.tableName,
        wanted.map((symbol) => ({ symbol })),
        { consistent: true },
      );
      const snapshots = await this.snapshotsOf(
        items.flatMap((item) => {
          const key = item.recentKey as string | undefined;
          return key === undefined || this.decodedRecent.has(key) ? [] : [key];
        }),
      );
      // A snapshot missing now was removed by a commit after the ledger was read: read that ledger again.
      wanted = [];
      for (const item of items) {
        const versioned = this.toVersioned(item, snapshots);
        if (versioned === undefined) wanted.push(item.symbol as string);
        else found.set(item.symbol as string, versioned);
      }
    }
    return found;
  }

  async put(ledger: SymbolLedger, previousVersion: number | undefined, pending?: Pending): Promise<boolean> {
    const { recent, price, ...hot } = ledger;
    const version = (previousVersion ?? -1) + 1;
    const previous = this.lastSeen.get(ledger.symbol);
    const previousKey = previous?.version === previousVersion ? previous?.recentKey : undefined;
    const recentKey = hasBars(recent)
      ? await this.snapshotOf(ledger.symbol, version, recent, previousKey)
      : undefined;
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            symbol: ledger.symbol,
            version,
            data: encodeLedger({ ledger: hot, ...(pending === undefined ? {} : { pending }) }),
            ...(price === undefined ? {} : { price }),
            ...(recentKey === undefined ? {} : { recentKey }),
          },
          ...(previousVersion === undefined
            ? { ConditionExpression: 'attribute_not_exists(symbol)' }
            : {
                ConditionExpression: '#version = :previous',
                ExpressionAttributeNames: { '#version': 'version' },
                ExpressionAttributeValues: { ':previous': previousVersion },
              }),
        }),
      );
    } catch (error) {
      // A snapshot written for this attempt stays behind unnamed (rare: a lost race that completed a bar).
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
    this.see(ledger.symbol, version, recentKey);
    if (previousKey !== undefined && previousKey !== recentKey) {
      // No committed ledger names it any more: deleted while the writer goes on to its derived writes
      // (settled() waits for it); a crash before leaves it behind, unnamed and harmless.
      this.cleanUp(this.deleteSnapshot(previousKey));
    }
    return true;
  }

  async settled(): Promise<void> {
    const running = this.cleanups;
    this.cleanups = [];
    await Promise.all(running);
  }

  private cleanUp(work: Promise<void>): void {
    // Handled here so a failure before settled() is no unhandled rejection; settled() still rejects with it.
    work.catch(() => undefined);
    this.cleanups.push(work);
  }

  private async deleteSnapshot(key: string): Promise<void> {
    await this.snapshotDeletes.add(key);
    this.snapshots.delete(key);
    this.decodedRecent.delete(key);
  }

  /**
   * The key of `recent`'s snapshot: the one it was read as, or the previous version's when the bars are the
   * same (a copy), else a new one, written first.
   */
  private async snapshotOf(
    symbol: string,
    version: number,
    recent: RecentBars,
    previousKey: string | undefined,
  ): Promise<string> {
    const known = this.keyOfRecent.get(recent);
    if (known !== undefined) return known;
    const digest = digestOf(recent);
    if (previousKey !== undefined && digestIn(previousKey) === digest) return previousKey;
    const key = snapshotKey(symbol, version, digest);
    const data = encodeRecentBars(recent);
    await this.snapshotPuts.add({ symbol: key, data });
    this.remember(key, data);
    this.keyOfRecent.set(recent, key);
    this.keepDecoded(key, copyOfRecent(recent));
    return key;
  }

  /**
   * A copy of the recent bars of snapshot `key`, from the ones kept decoded or decoded from `snapshots` (and
   * kept); undefined when neither holds them (a newer commit removed the snapshot).
   */
  private recentOf(key: string, snapshots: ReadonlyMap<string, Uint8Array>): RecentBars | undefined {
    let kept = this.decodedRecent.get(key);
    if (kept === undefined) {
      const snapshot = snapshots.get(key);
      if (snapshot === undefined) return undefined;
      kept = decodeRecentBars(snapshot);
    }
    this.keepDecoded(key, kept);
    const recent = copyOfRecent(kept);
    this.keyOfRecent.set(recent, key);
    return recent;
  }

  private keepDecoded(key: string, recent: RecentBars): void {
    keepBounded(this.decodedRecent, key, recent, this.decodedRecentLimit);
  }

  /** The bytes of the snapshots of `keys` that exist: from the cache, the others read (and cached). */
  private async snapshotsOf(keys: readonly string[]): Promise<Map<string, Uint8Array>> {
    const found = new Map<string, Uint8Array>();
    const missing: string[] = [];
    for (const key of keys) {
      const cached = this.snapshots.get(key);
      if (cached === undefined) missing.push(key);
      else found.set(key, cached);
    }
    if (missing.length === 0) return found;
    const items = await batchGetAll(
      this.client,
      this.tableName,
      missing.map((symbol) => ({ symbol })),
      { consistent: true },
    );
    for (const item of items) {
      found.set(item.symbol as string, item.data as Uint8Array);
      this.remember(item.symbol as string, item.data as Uint8Array);
    }
    return found;
  }

  private remember(key: string, data: Uint8Array): void {
    keepBounded(this.snapshots, key, data, SNAPSHOT_CACHE_SIZE);
  }

  private see(symbol: string, version: number, recentKey: string | undefined): void {
    if ((this.lastSeen.get(symbol)?.version ?? -1) > version) return;
    this.lastSeen.set(symbol, { version, ...(recentKey === undefined ? {} : { recentKey }) });
  }

  /** The stored ledger, or undefined when the snapshot it names is gone (a newer commit replaced it). */
  private toVersioned(
    item: Record<string, unknown>,
    snapshots: ReadonlyMap<string, Uint8Array>,
  ): VersionedLedger<Pending> | undefined {
    const version = item.version as number;
    const symbol = item.symbol as string;
    const recentKey = item.recentKey as string | undefined;
    if (!(item.data instanceof Uint8Array)) {
      this.see(symbol, version, undefined);
      return fromAttributes<Pending>(item);
    }
    const { ledger, pending } = decodeLedger<Pending>(item.data);
    const price = latestPriceOf(item, ledger);
    let stored: SymbolLedger = price === undefined ? ledger : { ...ledger, price };
    if (recentKey !== undefined) {
      const recent = this.recentOf(recentKey, snapshots);
      if (recent === undefined) return undefined;
      stored = { ...stored, recent };
    }
    this.see(symbol, version, recentKey);
    return { version, ledger: stored, ...(pending === undefined ? {} : { pending }) };
  }
}

/**
 * A ledger item's latest price: its `price` attribute, or, in an item stored before that attribute, the price
 * encoded in `data` (`decoded`: that ledger, when the caller has decoded it already).
 */
export function latestPriceOf(
  item: Record<string, unknown>,
  decoded?: SymbolLedger,
): LatestPrice | undefined {
  if (item.price !== undefined) return item.price as LatestPrice;
  if (decoded !== undefined) return decoded.price;
  return item.data instanceof Uint8Array ? decodeLedger(item.data).ledger.price : undefined;
}

/** Recent bars nothing else holds: their lists and bars copied. */
function copyOfRecent(recent: RecentBars): RecentBars {
  const copy: RecentBars = {};
  for (const [interval, bars] of Object.entries(recent) as [
    keyof RecentBars,
    RecentBars[keyof RecentBars],
  ][]) {
    if (bars !== undefined) copy[interval] = bars.map((bar) => ({ ...bar }));
  }
  return copy;
}

/** A ledger stored before the encoding: its fields as attributes. */
function fromAttributes<Pending>(item: Record<string, unknown>): VersionedLedger<Pending> {
  const { version, pending, ...ledger } = item as unknown as SymbolLedger & {
    version: number;
    pending?: Pending;
  };
  return {
    version,
    ledger: { ...ledger, forming: ledger.forming ?? {} },
    ...(pending === undefined ? {} : { pending }),
  };
}
