import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoConsumerLeaseStore } from '#adapters/dynamo/consumer-lease-store';
import type { ConsumerLeaseStore } from '#use-cases/consumer-lease';
import { InMemoryConsumerLeaseStore } from '../support/consumer-lease-fakes.ts';
import { usePortImplementations } from '../support/port-contracts.ts';

/**
 * The ingest consumer's lease store (functions/use-cases/consumer-lease.ts): its DynamoDB adapter
 * (functions/adapters/dynamo/consumer-lease-store.ts) on dynalite, and the in-memory fake the use case's unit
 * tests run on (test/support/consumer-lease-fakes.ts), held to the same conditions.
 */
const implementations = usePortImplementations();

const S0 = 'shardId-000000000000';
const S1 = 'shardId-000000000001';
const S2 = 'shardId-000000000002';

describe.each(
  implementations<ConsumerLeaseStore>(
    () => new InMemoryConsumerLeaseStore(),
    async ({ client, table }) => new DynamoConsumerLeaseStore(client, await table('consumerLeases')),
  ),
)('ConsumerLeaseStore: $name', ({ create }) => {
  it('takes a lease never taken, once', async () => {
    const store = await create();
    expect(await store.read()).toBeUndefined();
    expect(await store.take('task-a', 1_000, undefined)).toBe(true);
    expect(await store.read()).toEqual({ holder: 'task-a', renewedAtMs: 1_000, positions: {} });
    expect(await store.take('task-b', 1_001, undefined)).toBe(false);
    expect((await store.read())?.holder).toBe('task-a');
  });

  it('refuses a take when the lease changed since it was seen', async () => {
    const store = await create();
    await store.take('task-a', 1_000, undefined);
    const seen = await store.read();
    expect(await store.renew('task-a', 2_000)).toBe(true);
    expect(await store.take('task-b', 3_000, seen)).toBe(false);
    expect(await store.take('task-b', 3_000, { holder: 'task-x', renewedAtMs: 2_000, positions: {} })).toBe(
      false,
    );
    expect(await store.take('task-b', 3_000, { renewedAtMs: 2_000, positions: {} })).toBe(false);
    expect(await store.read()).toEqual({ holder: 'task-a', renewedAtMs: 2_000, positions: {} });

    expect(await store.take('task-b', 3_000, await store.read())).toBe(true);
    expect(await store.read()).toEqual({ holder: 'task-b', renewedAtMs: 3_000, positions: {} });
  });

  it('refuses renewals and position saves of a task not holding the lease', async () => {
    const store = await create();
    expect(await store.renew('task-a', 500)).toBe(false);
    expect(await store.savePositions('task-a', new Map([[S0, '1']]))).toBe(false);
    expect(await store.read()).toBeUndefined();

    await store.take('task-a', 1_000, undefined);
    expect(await store.renew('task-b', 2_000)).toBe(false);
    expect(await store.savePositions('task-b', new Map([[S0, '1']]))).toBe(false);
    expect(await store.savePositions('task-b', new Map())).toBe(false);
    expect(await store.read()).toEqual({ holder: 'task-a', renewedAtMs: 1_000, positions: {} });

    expect(await store.renew('task-a', 2_000)).toBe(true);
    expect(await store.savePositions('task-a', new Map())).toBe(true);
    expect(await store.read()).toEqual({ holder: 'task-a', renewedAtMs: 2_000, positions: {} });
  });

  it('merges positions by shard, and keeps them across a takeover', async () => {
    const store = await create();
    await store.take('task-a', 1_000, undefined);
    expect(
      await store.savePositions(
        'task-a',
        new Map([
          [S0, '49590338271490256608559692538361571095921575989136588898'],
          [S1, '2'],
        ]),
      ),
    ).toBe(true);
    expect(
      await store.savePositions(
        'task-a',
        new Map([
          [S1, '3'],
          [S2, '4'],
        ]),
      ),
    ).toBe(true);
    const merged = { [S0]: '49590338271490256608559692538361571095921575989136588898', [S1]: '3', [S2]: '4' };
    expect((await store.read())?.positions).toEqual(merged);

    expect(await store.take('task-b', 5_000, await store.read())).toBe(true);
    expect(await store.read()).toEqual({ holder: 'task-b', renewedAtMs: 5_000, positions: merged });
    expect(await store.savePositions('task-a', new Map([[S0, '9']]))).toBe(false);
    expect(await store.savePositions('task-b', new Map([[S2, '5']]))).toBe(true);
    expect((await store.read())?.positions).toEqual({ ...merged, [S2]: '5' });
  });

  it('releases only its own lease; a released lease is taken once, with its positions', async () => {
    const store = await create();
    await store.take('task-a', 1_000, undefined);
    await store.savePositions('task-a', new Map([[S0, '10']]));
    await store.release('task-b');
    expect((await store.read())?.holder).toBe('task-a');

    await store.release('task-a');
    const released = await store.read();
    expect(released).toEqual({ renewedAtMs: 1_000, positions: { [S0]: '10' } });
    expect(await store.renew('task-a', 2_000)).toBe(false);
    expect(await store.savePositions('task-a', new Map([[S0, '11']]))).toBe(false);

    expect(await store.take('task-b', 3_000, released)).toBe(true);
    expect(await store.take('task-c', 3_000, released)).toBe(false);
    expect(await store.read()).toEqual({ holder: 'task-b', renewedAtMs: 3_000, positions: { [S0]: '10' } });
  });
});

describe('the lease item in DynamoDB', () => {
  const [, dynamo] = implementations(
    () => {
      throw new Error('DynamoDB only');
    },
    async ({ client, table }) => {
      const tableName = await table('consumerLeases');
      return {
        store: (key?: string) => new DynamoConsumerLeaseStore(client, tableName, key),
        item: async (lease: string) =>
          (await client.send(new GetCommand({ TableName: tableName, Key: { lease }, ConsistentRead: true })))
            .Item,
      };
    },
  );

  it('is keyed by the ingest lease by default, with the take’s time for operators', async () => {
    const { store, item } = await (dynamo?.create() ?? Promise.reject(new Error('no DynamoDB')));
    const takenAtMs = Date.parse('2026-11-27T15:00:00.000Z');
    await store().take('task-a', takenAtMs, undefined);
    await store().renew('task-a', takenAtMs + 1_000);
    await store().savePositions('task-a', new Map([[S0, '10']]));
    expect(await item('ingest')).toEqual({
      lease: 'ingest',
      holder: 'task-a',
      renewedAtMs: takenAtMs + 1_000,
      positions: { [S0]: '10' },
      takenAt: '2026-11-27T15:00:00.000Z',
    });

    const other = store('import');
    expect(await other.read()).toBeUndefined();
    expect(await other.take('task-b', takenAtMs, undefined)).toBe(true);
    expect((await item('import'))?.holder).toBe('task-b');
    expect((await item('ingest'))?.holder).toBe('task-a');
  });
});
