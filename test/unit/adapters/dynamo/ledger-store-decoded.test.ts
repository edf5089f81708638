import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  type BatchGetCommandInput,
  BatchWriteCommand,
  type BatchWriteCommandInput,
  DynamoDBDocumentClient,
  PutCommand,
  type PutCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { documentClientFor } from '#adapters/dynamo/document-client';
import { decodeRecentBars } from '#adapters/dynamo/ledger-codec';
import { DynamoLedgerStore } from '#adapters/dynamo/ledger-store';
import type { SymbolLedger } from '#domain/market-data/ledger';
import { bar } from '../../../support/builders.ts';

/**
 * The ledger store keeps recent-bar snapshots decoded (functions/adapters/dynamo/ledger-store.ts,
 * docs/storage.md#ledgers): the codec's decodes are counted, around the real one. The other snapshot rules
 * run against dynalite in test/integration/ledger-snapshots.test.ts.
 */
vi.mock('#adapters/dynamo/ledger-codec', async (importOriginal) => {
  const codec = await importOriginal<typeof import('#adapters/dynamo/ledger-codec')>();
  return { ...codec, decodeRecentBars: vi.fn(codec.decodeRecentBars) };
});

const TABLE = 'ledgers';
const documents = mockClient(DynamoDBDocumentClient);
const client = documentClientFor(new DynamoDBClient({}));

/** The ledgers table as a map by key: puts and batch writes change it, batch gets read it. */
let stored: Map<string, Record<string, unknown>>;
beforeEach(() => {
  stored = new Map();
  documents.on(PutCommand).callsFake((input: PutCommandInput) => {
    stored.set(input.Item?.symbol as string, input.Item as Record<string, unknown>);
    return {};
  });
  documents.on(BatchWriteCommand).callsFake((input: BatchWriteCommandInput) => {
    for (const request of input.RequestItems?.[TABLE] ?? []) {
      const item = request.PutRequest?.Item;
      if (item) stored.set(item.symbol as string, item);
      const key = request.DeleteRequest?.Key;
      if (key) stored.delete(key.symbol as string);
    }
    return {};
  });
  documents.on(BatchGetCommand).callsFake((input: BatchGetCommandInput) => ({
    Responses: {
      [TABLE]: (input.RequestItems?.[TABLE]?.Keys ?? []).flatMap((key) => stored.get(key.symbol) ?? []),
    },
  }));
  vi.mocked(decodeRecentBars).mockClear();
});
afterEach(() => documents.reset());

const ledger = (symbol: string, closes: readonly number[]): SymbolLedger => ({
  symbol,
  forming: {},
  recent: { '15m': closes.map((close, index) => bar(1_732_633_200 + index * 900, close)) },
});

describe('DynamoLedgerStore: recent bars decoded once', () => {
  it('decodes a snapshot once, and hands every read a copy of its own', async () => {
    const writer = new DynamoLedgerStore(client, TABLE);
    const written = ledger('AAPL', [1, 2]);
    await writer.put(written, undefined);
    // The writer kept a copy of the bars it wrote: its changes to them after the commit stay its own.
    written.recent?.['15m']?.push(bar(0, 9));
    expect((await writer.get('AAPL'))?.ledger.recent).toEqual(ledger('AAPL', [1, 2]).recent);
    expect(decodeRecentBars).not.toHaveBeenCalled();

    const reader = new DynamoLedgerStore(client, TABLE);
    const first = await reader.get('AAPL');
    first?.ledger.recent?.['15m']?.push(bar(0, 9));
    expect((await reader.get('AAPL'))?.ledger.recent).toEqual(ledger('AAPL', [1, 2]).recent);
    expect(decodeRecentBars).toHaveBeenCalledTimes(1);
  });

  it('keeps a bounded number of snapshots decoded, the least recently read first out', async () => {
    const writer = new DynamoLedgerStore(client, TABLE);
    for (const [index, symbol] of ['A', 'B', 'C'].entries()) {
      await writer.put(ledger(symbol, [index + 1]), undefined);
    }
    const reader = new DynamoLedgerStore(client, TABLE, 2);
    const decodesOf = async (...symbols: string[]) => {
      vi.mocked(decodeRecentBars).mockClear();
      for (const symbol of symbols) await reader.get(symbol);
      return vi.mocked(decodeRecentBars).mock.calls.length;
    };
    expect(await decodesOf('A', 'B')).toBe(2);
    expect(await decodesOf('A')).toBe(0);
    expect(await decodesOf('C')).toBe(1); // B, the least recently read, is let go
    expect(await decodesOf('A', 'C')).toBe(0);
    expect(await decodesOf('B')).toBe(1);
  });
});
