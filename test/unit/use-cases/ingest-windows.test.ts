import { describe, expect, it } from 'vitest';
import type { StreamItem, Trade } from '#domain/market-data/bars';
import { encodeTradeRecord } from '#domain/market-data/trade-records';
import type { IngestOutcome } from '#use-cases/ingest-trades';
import { type ShardRecord, WindowedIngest } from '#use-cases/ingest-windows';
import { deadLetterSink, inMemoryIngestPorts, RecordingQuotes } from '../../support/fakes.ts';

/** Tuesday 2024-11-26, open 14:30Z; the service clock reads that day's close. */
const open = Date.parse('2024-11-26T14:30:00Z');
const trade = (symbol: string, second: number, price: number, tradeId: string): Trade => ({
  symbol,
  price,
  size: 10,
  timestamp: open + second * 1_000,
  tradeId,
});

/** Each item its own record of `shardId`, numbered on from `first`. */
function recordsOf(shardId: string, first: number, ...items: StreamItem[]): ShardRecord[] {
  return items.map((item, index) => ({
    shardId,
    partitionKey: item.symbol,
    sequenceNumber: String(first + index),
    data: encodeTradeRecord(item),
  }));
}

/** Every item an outcome accounts for: applied, folded late, refused by reason or handed back. */
const accounted = (outcome: IngestOutcome | undefined) =>
  outcome === undefined
    ? 0
    : outcome.applied +
      outcome.latePrints +
      Object.values(outcome.refused).reduce((sum, count) => sum + count, 0) +
      outcome.handedBack;

function setUp(serviceNowMs?: number) {
  const stores = inMemoryIngestPorts(serviceNowMs);
  const quotes = new RecordingQuotes();
  const letters = deadLetterSink();
  const positions = new Map<string, string>();
  const saves: Map<string, string>[] = [];
  let wallMs = 0;
  const core = new WindowedIngest(
    {
      ...stores,
      deadLetters: letters.sink,
      checkpoints: {
        save: async (advanced) => {
          saves.push(new Map(advanced));
          for (const [shardId, sequenceNumber] of advanced) positions.set(shardId, sequenceNumber);
        },
      },
    },
    { commitIntervalMs: 1_000, windowMs: 150, wallClockMs: () => wallMs },
  );
  // Every window's quotes to the one recording publisher.
  const ingest = {
    window: (records: readonly ShardRecord[]) => core.window(records, quotes),
    drain: () => core.drain(),
    get backlog() {
      return core.backlog;
    },
  };
  const elapse = (ms: number) => {
    wallMs += ms;
  };
  return { stores, quotes, letters, positions, saves, ingest, elapse };
}

describe('WindowedIngest (docs/adr/0026-long-running-ingest-consumer.md)', () => {
  it('publishes a window’s quotes before committing anything, and commits once the interval is up', async () => {
    const { stores, quotes, positions, ingest, elapse } = setUp();

    const first = await ingest.window(
      recordsOf('shard-0', 1, trade('AAPL', 1, 190, 'a1'), trade('AAPL', 2, 191, 'a2')),
    );

    expect(first).toMatchObject({ quotes: 1, committedItems: 0, oldestTakenMs: open + 1_000 });
    expect(first.oldestCommittedMs).toBeUndefined();
    expect(quotes.moves).toMatchObject([{ symbol: 'AAPL', price: 191, version: 0, revision: 1 }]);
    expect(await stores.ledgers.get('AAPL')).toBeUndefined();
    expect(positions.size).toBe(0);

    elapse(400);
    await ingest.window(recordsOf('shard-0', 3, trade('AAPL', 3, 192, 'a3')));
    expect(quotes.moves.map(({ price, version, revision }) => [price, version, revision])).toEqual([
      [191, 0, 1],
      [192, 0, 2],
    ]);
    expect(await stores.ledgers.get('AAPL')).toBeUndefined();

    elapse(600);
    const due = await ingest.window([]);

    expect(due).toMatchObject({
      quotes: 0,
      committedItems: 3,
      committed: { applied: 3 },
      oldestCommittedMs: open + 1_000,
    });
    expect(due.oldestTakenMs).toBeUndefined();
    expect((await stores.ledgers.get('AAPL'))?.ledger.price).toMatchObject({ price: 192, tradeId: 'a3' });
    expect(positions).toEqual(new Map([['shard-0', '3']]));
    expect(ingest.backlog).toBe(0);
  });

  it('commits a backlog by the last window before it would wait past the interval, a window ahead of it', async () => {
    const { stores, ingest, elapse } = setUp();
    await ingest.window(recordsOf('shard-0', 1, trade('AAPL', 1, 190, 'a1')));

    // 849 ms on, the next window could still come within the interval: not yet.
    elapse(849);
    expect((await ingest.window([])).committedItems).toBe(0);
    expect(await stores.ledgers.get('AAPL')).toBeUndefined();
    // 850 ms on, the next window may come 150 ms later, past the second: now.
    elapse(1);
    expect((await ingest.window([])).committedItems).toBe(1);
    expect((await stores.ledgers.get('AAPL'))?.ledger.price?.price).toBe(190);
  });

  it('saves positions at most once a window however often windows come, and always when drained', async () => {
    const { saves, ingest, elapse } = setUp();
    await ingest.window(recordsOf('shard-0', 1, trade('AAPL', 1, 190, 'a1')));
    elapse(10);
    await ingest.window(recordsOf('shard-0', 2, trade('MSFT', 1, 410, 'm1')));

    // AAPL's commit is due: its record's position is saved.
    elapse(840);
    expect((await ingest.window([])).checkpoints).toEqual(new Map([['shard-0', '1']]));
    // 10 ms later MSFT's: committed, its position held back, less than a window after the last save.
    elapse(10);
    const soon = await ingest.window([]);
    expect(soon.committedItems).toBe(1);
    expect(soon.checkpoints.size).toBe(0);
    expect(saves).toEqual([new Map([['shard-0', '1']])]);
    // A window after the last save: saved.
    elapse(140);
    expect((await ingest.window([])).checkpoints).toEqual(new Map([['shard-0', '2']]));

    // A drain saves at once, however soon.
    await ingest.window(recordsOf('shard-0', 3, trade('AAPL', 2, 191, 'a2')));
    await ingest.drain();
    expect(saves.at(-1)).toEqual(new Map([['shard-0', '3']]));
  });

  it('sends no quote for a fold that leaves the price where partners last saw it, and numbers the next commit’s quotes afresh', async () => {
    const { quotes, ingest, elapse } = setUp();
    await ingest.window(recordsOf('shard-0', 1, trade('AAPL', 1, 190, 'a1')));
    // The same trade delivered again by the provider: a duplicate, the price unmoved.
    await ingest.window(recordsOf('shard-0', 2, trade('AAPL', 1, 190, 'a1')));
    elapse(1_000);
    await ingest.window([]);
    await ingest.window(recordsOf('shard-0', 3, trade('AAPL', 2, 190.5, 'a2')));

    expect(quotes.moves.map(({ price, version, revision }) => [price, version, revision])).toEqual([
      [190, 0, 1],
      [190.5, 1, 1],
    ]);
  });

  it('keeps a shard’s position before a record whose symbol is not committed yet, whatever was committed after it', async () => {
    const { positions, ingest, elapse, stores } = setUp();
    await ingest.window(recordsOf('shard-0', 1, trade('AAPL', 1, 190, 'a1')));
    elapse(600);
    await ingest.window(recordsOf('shard-0', 2, trade('MSFT', 2, 410, 'm1')));
    elapse(400);
    // AAPL's interval is up, MSFT's is not: AAPL's record 1 is committed, MSFT's record 2 is not.
    const window = await ingest.window(recordsOf('shard-0', 3, trade('AAPL', 3, 191, 'a2')));

    expect(window.committedItems).toBe(2);
    expect(positions).toEqual(new Map([['shard-0', '1']]));
    expect(await stores.ledgers.get('MSFT')).toBeUndefined();

    await ingest.drain();
    expect(positions).toEqual(new Map([['shard-0', '3']]));
  });

  it('commits a fold that fires alerts in its own window', async () => {
    const at = (day: string, hhmm: string) => Date.parse(`${day}T${hhmm}:00Z`);
    const { stores, ingest } = setUp(at('2024-11-22', '16:00'));
    // Three days, the third inside the second; a trade above the third's high on the fourth fires a daily
    // in-force alert (1-2U).
    const days = [
      ['2024-11-19', [100, 105, 95]],
      ['2024-11-20', [101, 103, 99]],
      ['2024-11-21', [102, 104]],
    ] as const;
    const history = days.flatMap(([day, prices]) =>
      prices.map((price, index) => ({
        symbol: 'SPY',
        price,
        size: 1,
        timestamp: at(day, `15:0${index}`),
        tradeId: `${day}-${index}`,
      })),
    );
    await ingest.window(recordsOf('shard-0', 1, ...history));
    await ingest.drain();
    expect(stores.alerts.events).toHaveLength(0);

    const crossing = {
      symbol: 'SPY',
      price: 104.5,
      size: 1,
      timestamp: at('2024-11-22', '15:10'),
      tradeId: 'x',
    };
    const breaking = await ingest.window(recordsOf('shard-0', 100, crossing));

    expect(breaking).toMatchObject({ committedItems: 1, committed: { applied: 1 } });
    expect(breaking.committed?.alerts).toBe(stores.alerts.events.length);
    expect(stores.alerts.events.map(({ body }) => body)).toContainEqual(
      expect.objectContaining({ symbol: 'SPY', timeframe: 'D', shape: '1-2U', direction: 'bullish' }),
    );
  });

  it('dead-letters a poison record at once and a future trade when its commit refuses it, before the position passes them', async () => {
    const { letters, positions, saves, ingest } = setUp();
    const poison: ShardRecord = {
      shardId: 'shard-0',
      partitionKey: 'AAPL',
      sequenceNumber: '1',
      data: '{not',
    };
    const ahead = { ...trade('AAPL', 0, 190, 'f1'), timestamp: Date.parse('2030-01-02T15:00:00Z') };

    const window = await ingest.window([
      poison,
      ...recordsOf('shard-0', 2, ahead, trade('AAPL', 1, 191, 'a1')),
    ]);
    expect(window).toMatchObject({ poison: 1, quotes: 1 });
    expect(letters.letters.map(({ reason }) => reason)).toEqual(['poison']);
    expect(positions).toEqual(new Map([['shard-0', '1']]));

    const drained = await ingest.drain();

    expect(drained).toMatchObject({ deadLettered: 1, committed: { applied: 1, refused: { future: 1 } } });
    expect(letters.letters.map(({ reason, sequenceNumber }) => [reason, sequenceNumber])).toEqual([
      ['poison', '1'],
      ['future', '2'],
    ]);
    expect(saves).toEqual([new Map([['shard-0', '1']]), new Map([['shard-0', '3']])]);
  });

  it('keeps the position before a poison record until its dead letter is put, and puts it again after a failure', async () => {
    const { letters, positions, ingest } = setUp();
    const put = letters.sink.put;
    letters.sink.put = async () => {
      throw new Error('the queue is unreachable');
    };
    const poison: ShardRecord = {
      shardId: 'shard-0',
      partitionKey: 'AAPL',
      sequenceNumber: '1',
      data: '{not',
    };

    await expect(
      ingest.window([poison, ...recordsOf('shard-0', 2, trade('AAPL', 1, 190, 'a1'))]),
    ).rejects.toThrow('unreachable');
    await expect(ingest.drain()).rejects.toThrow('unreachable');
    expect(positions.size).toBe(0);

    letters.sink.put = put;
    await ingest.window([]);
    expect(letters.letters.map(({ sequenceNumber }) => sequenceNumber)).toEqual(['1']);
    expect(positions).toEqual(new Map([['shard-0', '1']]));

    await ingest.drain();
    expect(positions).toEqual(new Map([['shard-0', '2']]));
  });

  it('counts each trade once, when its commit is decided: applied or refused by reason', async () => {
    const { ingest, elapse } = setUp();
    const received: StreamItem[] = [];
    const outcomes: (IngestOutcome | undefined)[] = [];
    let sequence = 1;
    for (let second = 0; second < 30; second++) {
      const items = [
        trade('AAPL', second, 190 + (second % 5), `a${second}`),
        trade('MSFT', second, 410, `m${second}`),
      ];
      // Every fifth second the provider sends the second before again.
      if (second % 5 === 4) items.push(trade('AAPL', second - 1, 190 + ((second - 1) % 5), `a${second - 1}`));
      received.push(...items);
      const window = await ingest.window(recordsOf(`shard-${second % 2}`, sequence, ...items));
      sequence += items.length;
      outcomes.push(window.committed);
      expect(accounted(window.committed)).toBe(window.committedItems);
      elapse(300);
    }
    outcomes.push((await ingest.drain()).committed);

    const total = (pick: (outcome: IngestOutcome) => number) =>
      outcomes.reduce((sum, outcome) => sum + (outcome === undefined ? 0 : pick(outcome)), 0);
    expect(total((outcome) => accounted(outcome))).toBe(received.length);
    expect(total(({ applied }) => applied)).toBe(60);
    expect(total(({ refused }) => refused.duplicate + refused.redelivered)).toBe(6);
  });

  it('reads a ledger from storage once, then folds onto the one it committed', async () => {
    const { stores, ingest, elapse } = setUp();
    let reads = 0;
    const getMany = stores.ledgers.getMany.bind(stores.ledgers);
    stores.ledgers.getMany = async (symbols) => {
      reads += symbols.length;
      return getMany(symbols);
    };
    for (let second = 0; second < 5; second++) {
      await ingest.window(
        recordsOf('shard-0', second + 1, trade('AAPL', second, 190 + second, `a${second}`)),
      );
      elapse(1_000);
    }
    await ingest.drain();

    // Once, in the first window, which found nothing stored; never again.
    expect(reads).toBe(1);
    expect((await stores.ledgers.get('AAPL'))?.ledger.price?.tradeId).toBe('a4');
  });

  it('folds again onto what another writer committed meanwhile, instead of onto the ledger it remembers', async () => {
    const { stores, ingest, elapse } = setUp();
    await ingest.window(recordsOf('shard-0', 1, trade('AAPL', 1, 190, 'a1')));
    await ingest.drain();
    // Another writer (a history import, say) commits the ledger behind the consumer's back.
    const stored = await stores.ledgers.get('AAPL');
    await stores.ledgers.put(
      { ...(stored?.ledger as NonNullable<typeof stored>['ledger']) },
      stored?.version,
    );

    await ingest.window(recordsOf('shard-0', 2, trade('AAPL', 2, 191, 'a2')));
    elapse(1_000);
    const window = await ingest.window([]);

    expect(window.committed).toMatchObject({ applied: 1, handedBack: 0 });
    expect(await stores.ledgers.get('AAPL')).toMatchObject({
      version: 2,
      ledger: { price: { tradeId: 'a2' } },
    });
  });
});
