import {
  BatchGetCommand,
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  PutCommand,
} from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { encodeLedger } from '#adapters/dynamo/ledger-codec';
import { DynamoLedgerStore } from '#adapters/dynamo/ledger-store';
import type { SymbolLedger } from '#domain/market-data/ledger';
import { localDocumentClient } from '../../scripts/local/dynamo.ts';
import { localTableName, scanLocalTable } from '../../scripts/local/tables.ts';
import { bar } from '../support/builders.ts';
import { useLocalDynamo } from '../support/local-dynamo.ts';

/**
 * The ledger's Strat recent bars in a snapshot item of their own (functions/adapters/dynamo/ledger-store.ts,
 * docs/storage.md#ledgers): written only when they change, removed when replaced, read consistently.
 */
const dynamo = useLocalDynamo();
const table = localTableName('ledgers');
let client: DynamoDBDocumentClient;
let symbolNumber = 0;
let symbol: string;

beforeEach(() => {
  client = localDocumentClient(dynamo().endpoint);
  symbolNumber += 1;
  symbol = `SNAP${symbolNumber}`;
});

function ledger(closes: readonly number[], price = 100): SymbolLedger {
  return {
    symbol,
    price: { price, volume: 1, timestamp: 1_732_633_200_000 + price, tradeId: String(price) },
    forming: {},
    recent: { '15m': closes.map((close, index) => bar(1_732_633_200 + index * 900, close)) },
  };
}

/** This symbol's items in the ledgers table: its ledger, and its snapshots by key. */
async function itemsOfSymbol() {
  const items = (await scanLocalTable(client, 'ledgers')).filter((item) =>
    (item.symbol as string).startsWith(symbol),
  );
  const ledgerItem = items.find((item) => item.symbol === symbol);
  const snapshots = items.filter((item) => item.symbol !== symbol).map((item) => item.symbol as string);
  return { ledgerItem, snapshots };
}

describe('the ledger store’s recent-bar snapshots', () => {
  it('writes a snapshot once and only the small ledger item while the recent bars stay the same', async () => {
    const store = new DynamoLedgerStore(client, table);
    await store.put(ledger([1, 2]), undefined);
    const first = await itemsOfSymbol();
    expect(first.snapshots).toHaveLength(1);
    expect(first.ledgerItem?.recentKey).toBe(first.snapshots[0]);

    for (let version = 0; version < 3; version++) {
      const read = await store.get(symbol);
      if (!read) throw new Error('the ledger was not stored');
      const lastTrade = { timestamp: 1_732_633_260_000 + version, tradeId: `T${version}` };
      expect(await store.put({ ...read.ledger, lastTrade }, version)).toBe(true);
    }
    const later = await itemsOfSymbol();
    expect(later.snapshots).toEqual(first.snapshots);
    expect(later.ledgerItem?.version).toBe(3);
    expect(later.ledgerItem?.data).toBeInstanceOf(Uint8Array);
    expect((await new DynamoLedgerStore(client, table).get(symbol))?.ledger.recent).toEqual(
      ledger([1, 2]).recent,
    );
  });

  it('writes no snapshot for a copy of the same recent bars', async () => {
    const store = new DynamoLedgerStore(client, table);
    await store.put(ledger([1, 2]), undefined);
    const before = await itemsOfSymbol();
    await store.get(symbol);
    // A new object with the same bars, as a merge of history makes.
    expect(await store.put(ledger([1, 2], 101), 0)).toBe(true);
    const after = await itemsOfSymbol();
    expect(after.snapshots).toEqual(before.snapshots);
    expect(after.ledgerItem?.recentKey).toBe(before.snapshots[0]);
  });

  it('replaces the snapshot when a bar completes and removes the one no ledger names any more', async () => {
    const store = new DynamoLedgerStore(client, table);
    await store.put(ledger([1, 2]), undefined);
    const before = await itemsOfSymbol();
    await store.get(symbol);
    expect(await store.put(ledger([1, 2, 3]), 0)).toBe(true);
    await store.settled();
    const after = await itemsOfSymbol();
    expect(after.snapshots).toHaveLength(1);
    expect(after.snapshots[0]).not.toBe(before.snapshots[0]);
    expect(after.ledgerItem?.recentKey).toBe(after.snapshots[0]);
    expect(await new DynamoLedgerStore(client, table).get(symbol)).toEqual({
      ledger: ledger([1, 2, 3]),
      version: 1,
    });
  });

  it('commits without waiting for the replaced snapshot’s removal; settled() waits for it and reports its failure', async () => {
    let releaseDelete: (() => void) | undefined;
    let failDelete = false;
    // The store's client: a batch of deletes is sent once released, and fails when told to.
    const deletes = (command: unknown) =>
      command instanceof BatchWriteCommand &&
      Object.values(command.input.RequestItems ?? {}).some((requests) =>
        requests.some((request) => request.DeleteRequest !== undefined),
      );
    const holdingClient = {
      send: async (command: unknown) => {
        if (deletes(command)) {
          await new Promise<void>((resolve) => {
            releaseDelete = resolve;
          });
          releaseDelete = undefined;
          if (failDelete) throw new Error('the delete failed');
        }
        return client.send(command as BatchWriteCommand);
      },
    } as unknown as DynamoDBDocumentClient;
    const store = new DynamoLedgerStore(holdingClient, table);
    await store.put(ledger([1]), undefined);
    await store.get(symbol);
    expect(await store.put(ledger([1, 2]), 0)).toBe(true);
    // Committed, the old snapshot still there: its removal waits.
    expect((await itemsOfSymbol()).snapshots).toHaveLength(2);
    let settled = false;
    const settling = store.settled().then(() => {
      settled = true;
    });
    await vi.waitFor(() => expect(releaseDelete).toBeDefined());
    expect(settled).toBe(false);
    releaseDelete?.();
    await settling;
    const { snapshots, ledgerItem } = await itemsOfSymbol();
    expect(snapshots).toEqual([ledgerItem?.recentKey]);

    failDelete = true;
    expect(await store.put(ledger([1, 2, 3]), 1)).toBe(true);
    await vi.waitFor(() => expect(releaseDelete).toBeDefined());
    releaseDelete?.();
    await expect(store.settled()).rejects.toThrow('the delete failed');
    // Reported once: the next writer starts clean.
    await expect(store.settled()).resolves.toBeUndefined();
  });

  it('writes the snapshots of a close together, 25 to a BatchWriteItem, and removes every one replaced', async () => {
    const sent: string[] = [];
    /** Each BatchWriteItem's puts and deletes. */
    const batches: { puts: number; deletes: number }[] = [];
    const countingClient = {
      send: async (command: {
        constructor: { name: string };
        input: { RequestItems?: Record<string, { PutRequest?: unknown; DeleteRequest?: unknown }[]> };
      }) => {
        sent.push(command.constructor.name);
        const requests = Object.values(command.input.RequestItems ?? {}).flat();
        if (command.constructor.name === 'BatchWriteCommand') {
          batches.push({
            puts: requests.filter((request) => request.PutRequest).length,
            deletes: requests.filter((request) => request.DeleteRequest).length,
          });
        }
        return client.send(command as unknown as PutCommand);
      },
    } as unknown as DynamoDBDocumentClient;
    const store = new DynamoLedgerStore(countingClient, table);
    const symbols = Array.from({ length: 30 }, (_, index) => `${symbol}X${index}`);
    const ledgerOf = (name: string, closes: number[]) => ({ ...ledger(closes), symbol: name });
    await Promise.all(symbols.map((name) => store.put(ledgerOf(name, [1]), undefined)));
    await store.settled();
    sent.length = 0;
    batches.length = 0;

    // A 15-minute close: every symbol's recent bars change at once.
    const committed = await Promise.all(symbols.map((name) => store.put(ledgerOf(name, [1, 2]), 0)));
    await store.settled();

    expect(committed.every(Boolean)).toBe(true);
    // The 30 snapshots and the 30 they replace in batches of at most 25 (as few as two each when the puts
    // meet within the batching window; a loaded machine may split them further), the 30 ledgers in
    // conditional puts of their own, nothing put or removed one at a time.
    expect(sent.filter((name) => name === 'PutCommand')).toHaveLength(30);
    expect(sent.filter((name) => name === 'DeleteCommand')).toEqual([]);
    expect(batches.every(({ puts, deletes }) => puts + deletes <= 25)).toBe(true);
    expect(batches.reduce((sum, { puts }) => sum + puts, 0)).toBe(30);
    expect(batches.reduce((sum, { deletes }) => sum + deletes, 0)).toBe(30);
    expect(batches.length).toBeLessThanOrEqual(12);
    const { snapshots } = await itemsOfSymbol();
    expect(snapshots.filter((key) => key.includes('#recent#'))).toHaveLength(30);
    const reader = new DynamoLedgerStore(client, table);
    const read = await reader.getMany(symbols);
    expect([...read.values()].map(({ ledger: stored }) => stored.recent)).toEqual(
      symbols.map(() => ledger([1, 2]).recent),
    );
  });

  it('keeps the winner’s snapshot when two writers race for one version with different bars', async () => {
    const [first, second] = [new DynamoLedgerStore(client, table), new DynamoLedgerStore(client, table)];
    await first.put(ledger([1]), undefined);
    await Promise.all([first.get(symbol), second.get(symbol)]);
    const results = await Promise.all([
      first.put(ledger([1, 2], 101), 0),
      second.put(ledger([1, 3], 102), 0),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const won = results[0] ? ledger([1, 2], 101) : ledger([1, 3], 102);
    expect(await new DynamoLedgerStore(client, table).get(symbol)).toEqual({ ledger: won, version: 1 });
  });

  it('reads a ledger again when a commit removed its snapshot between the two reads', async () => {
    const writer = new DynamoLedgerStore(client, table);
    await writer.put(ledger([1]), undefined);
    await writer.get(symbol);
    let raced = false;
    // The reader's client: right after the reader's first read of the ledger, the writer commits version 1
    // and removes the snapshot version 0 named.
    const racingClient = {
      send: async (command: unknown) => {
        const output = await client.send(command as BatchGetCommand);
        const keys = (command as BatchGetCommand).input.RequestItems?.[table]?.Keys ?? [];
        if (!raced && command instanceof BatchGetCommand && keys.some((key) => key.symbol === symbol)) {
          raced = true;
          await writer.put(ledger([1, 2]), 0);
          await writer.settled();
        }
        return output;
      },
    } as unknown as DynamoDBDocumentClient;
    const read = await new DynamoLedgerStore(racingClient, table).get(symbol);
    expect(raced).toBe(true);
    expect(read).toEqual({ ledger: ledger([1, 2]), version: 1 });
  });

  it('removes the replaced snapshot even when a slower reader of the same store saw an older version', async () => {
    let hold: Promise<void> | undefined;
    let releaseHeld = () => {};
    // The store's client: while `hold` is set, the answer of a BatchGet waits for it (a slow reader).
    const slowClient = {
      send: async (command: unknown) => {
        const held = command instanceof BatchGetCommand ? hold : undefined;
        hold = undefined;
        const output = await client.send(command as BatchGetCommand);
        await held;
        return output;
      },
    } as unknown as DynamoDBDocumentClient;
    const store = new DynamoLedgerStore(slowClient, table);
    await store.put(ledger([1]), undefined);
    hold = new Promise((resolve) => {
      releaseHeld = () => resolve();
    });
    const slowRead = store.getMany([symbol]);
    const read = await store.get(symbol);
    if (!read) throw new Error('the ledger was not stored');
    await store.put({ ...read.ledger, lastTrade: { timestamp: 1, tradeId: 'T1' } }, 0);
    releaseHeld();
    expect((await slowRead).get(symbol)?.version).toBe(0);

    expect(await store.put(ledger([1, 2]), 1)).toBe(true);
    await store.settled();
    const { snapshots, ledgerItem } = await itemsOfSymbol();
    expect(snapshots).toEqual([ledgerItem?.recentKey]);
  });

  it('reads a ledger stored with its recent bars inside, and moves them to a snapshot at its next commit', async () => {
    const old = ledger([4, 5]);
    await client.send(
      new PutCommand({ TableName: table, Item: { symbol, version: 2, data: encodeLedger({ ledger: old }) } }),
    );
    const store = new DynamoLedgerStore(client, table);
    expect(await store.get(symbol)).toEqual({ ledger: old, version: 2 });
    expect((await itemsOfSymbol()).snapshots).toHaveLength(0);
    expect(await store.put(old, 2)).toBe(true);
    const moved = await itemsOfSymbol();
    expect(moved.snapshots).toHaveLength(1);
    expect(await new DynamoLedgerStore(client, table).get(symbol)).toEqual({ ledger: old, version: 3 });
  });

  it('writes no snapshot for a ledger without recent bars', async () => {
    const store = new DynamoLedgerStore(client, table);
    await store.put({ symbol, forming: {} }, undefined);
    const { ledgerItem, snapshots } = await itemsOfSymbol();
    expect(snapshots).toEqual([]);
    expect(ledgerItem).not.toHaveProperty('recentKey');
    expect(await store.get(symbol)).toEqual({ ledger: { symbol, forming: {} }, version: 0 });
  });
});
