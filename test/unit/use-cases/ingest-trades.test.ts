import { describe, expect, it } from 'vitest';
import { TRADE_TIMING } from '#contracts/ingestion';
import type { Trade } from '#domain/market-data/bars';
import { ingestTrades } from '#use-cases/ingest-trades';
import { inMemoryIngestPorts, losingLedgers } from '../../support/fakes.ts';

const open = Date.parse('2024-11-26T14:30:00Z');
const trade = (symbol: string, minute: number, price: number, size: number, id: number): Trade => ({
  symbol,
  price,
  size,
  timestamp: open + minute * 60_000,
  tradeId: String(id).padStart(6, '0'),
});
const ports = () => inMemoryIngestPorts();

/** The stores, but the writer stops (throws) at `store`'s `method`: after its commit, before that write. */
function stoppingAt<Store extends 'bars' | 'states'>(
  stores: ReturnType<typeof ports>,
  store: Store,
  method: keyof ReturnType<typeof ports>[Store],
) {
  const stopping = Object.assign(Object.create(stores[store]) as ReturnType<typeof ports>[Store], {
    [method]: async () => {
      throw new Error('the writer stopped here');
    },
  });
  return { ...stores, [store]: stopping };
}

describe('ingestTrades', () => {
  it('writes the latest price per symbol, the ledger, and the bars a later period completed', async () => {
    const stores = ports();
    const outcome = await ingestTrades(
      [trade('AAPL', 0, 100, 10, 1), trade('MSFT', 0, 50, 5, 2), trade('AAPL', 1, 101, 20, 3)],
      stores,
    );

    expect(outcome).toMatchObject({
      applied: 3,
      latePrints: 0,
      refused: { duplicate: 0, late: 0, future: 0, outside_session: 0, invalid: 0 },
      failedSymbols: [],
    });
    expect(await stores.prices.getMany(['AAPL', 'MSFT'])).toEqual([
      { symbol: 'AAPL', price: 101, volume: 20, timestamp: open + 60_000, tradeId: '000003' },
      { symbol: 'MSFT', price: 50, volume: 5, timestamp: open, tradeId: '000002' },
    ]);
    expect(await stores.bars.query({ symbol: 'AAPL', interval: '1m' }, { limit: 10 })).toEqual([
      { time: open / 1000, open: 100, high: 100, low: 100, close: 100, volume: 10 },
    ]);
    expect((await stores.ledgers.get('AAPL'))?.ledger.forming['1d']).toMatchObject({
      open: 100,
      close: 101,
      volume: 30,
    });
  });

  it('changes nothing when the same batch is delivered again', async () => {
    const stores = ports();
    const batch = [trade('AAPL', 0, 100, 10, 1), trade('AAPL', 1, 101, 20, 2)];
    await ingestTrades(batch, stores);
    const version = (await stores.ledgers.get('AAPL'))?.version;

    const again = await ingestTrades(batch, stores);

    // The first trade is a minute older than the last, past the late-print window: the trade log shows it
    // applied, so it is a redelivery, not a late print.
    expect(again).toMatchObject({ applied: 0, refused: { duplicate: 1, redelivered: 1, late: 0 } });
    expect((await stores.ledgers.get('AAPL'))?.version).toBe(version);
    expect((await stores.ledgers.get('AAPL'))?.ledger.forming['1d']?.volume).toBe(30);
  });

  it('reports a symbol whose ledger another writer changed meanwhile, and writes nothing derived from it', async () => {
    const stores = ports();
    await ingestTrades([trade('AAPL', 0, 100, 10, 1)], stores);
    const racing = { ...stores, ledgers: losingLedgers(stores.ledgers, 'AAPL') };

    const outcome = await ingestTrades(
      [trade('AAPL', 1, 101, 1, 2), trade('AAPL', 2, 102, 1, 3), trade('MSFT', 1, 50, 1, 4)],
      racing,
    );

    expect(outcome.failedSymbols).toEqual(['AAPL']);
    expect((await stores.ledgers.get('MSFT'))?.ledger.price?.price).toBe(50);
    // The loser's fold completed two AAPL minutes and moved its price: none of it may land.
    expect(await stores.bars.query({ symbol: 'AAPL', interval: '1m' }, { limit: 10 })).toEqual([]);
    expect((await stores.prices.getMany(['AAPL']))[0]?.price).toBe(100);
  });

  it('applies the writes of a commit again when a writer stopped after it and the batch comes again', async () => {
    const stores = ports();
    const batch = [trade('AAPL', 0, 100, 10, 1), trade('AAPL', 1, 101, 20, 2)];
    await expect(ingestTrades(batch, stoppingAt(stores, 'bars', 'putMany'))).rejects.toThrow('stopped');
    expect((await stores.ledgers.get('AAPL'))?.version).toBe(0);

    const again = await ingestTrades(batch, stores);

    expect(again).toMatchObject({
      applied: 0,
      recovered: 1,
      refused: { duplicate: 1, redelivered: 1, late: 0 },
    });
    expect(await stores.bars.query({ symbol: 'AAPL', interval: '1m' }, { limit: 10 })).toEqual([
      { time: open / 1000, open: 100, high: 100, low: 100, close: 100, volume: 10 },
    ]);
    expect((await stores.prices.getMany(['AAPL']))[0]).toMatchObject({ price: 101, tradeId: '000002' });
  });

  it('writes the state of a recovered commit even when the batch’s next commit leaves that state as it was', async () => {
    const stores = ports();
    await ingestTrades([trade('AAPL', 0, 100, 10, 1)], stores);
    const before = stores.states.states.get('AAPL');
    // The next 15 minutes' first trade changes the state; the writer stops before writing it.
    const batch = [trade('AAPL', 15, 105, 10, 2)];
    await expect(ingestTrades(batch, stoppingAt(stores, 'states', 'putNewer'))).rejects.toThrow('stopped');
    expect(stores.states.states.get('AAPL')).toEqual(before);

    // Delivered again with one more trade at the same price: a commit that changes the state no further.
    await ingestTrades([...batch, trade('AAPL', 15, 105, 5, 3)], stores);

    const state = stores.states.states.get('AAPL');
    expect(state?.ledgerVersion).toBe(2);
    expect(state?.tfc).not.toEqual(before?.tfc);
  });

  it('refuses a trade stamped years ahead, sets it apart, and keeps applying the real ones', async () => {
    const stores = ports();
    const glitch = { ...trade('AAPL', 0, 999, 1, 2), timestamp: Date.parse('2030-01-02T15:00:00Z') };
    const outcome = await ingestTrades(
      [trade('AAPL', 0, 100, 10, 1), glitch, trade('AAPL', 1, 101, 20, 3)],
      stores,
    );
    const later = await ingestTrades([trade('AAPL', 2, 102, 5, 4)], stores);

    expect(outcome).toMatchObject({ applied: 2, refused: { future: 1 }, future: [glitch] });
    expect(later).toMatchObject({ applied: 1 });
    expect((await stores.prices.getMany(['AAPL']))[0]).toMatchObject({ price: 102, tradeId: '000004' });
  });

  it('takes a trade up to the tolerance ahead of the service clock', async () => {
    const nowMs = open + 60_000;
    const stores = inMemoryIngestPorts(nowMs);
    const early = { ...trade('AAPL', 0, 100, 1, 1), timestamp: nowMs + TRADE_TIMING.futureToleranceMs };
    const tooEarly = { ...early, tradeId: 'x', timestamp: early.timestamp + 1 };
    expect(await ingestTrades([early, tooEarly], stores)).toMatchObject({
      applied: 1,
      refused: { future: 1 },
    });
  });

  it('ignores trades outside the session and writes nothing for them', async () => {
    const stores = ports();
    const outcome = await ingestTrades(
      [{ ...trade('AAPL', 0, 100, 1, 1), timestamp: open - 60_000 }],
      stores,
    );
    expect(outcome).toMatchObject({ applied: 0, refused: { outside_session: 1 } });
    expect(await stores.ledgers.get('AAPL')).toBeUndefined();
    expect(await stores.prices.getMany(['AAPL'])).toEqual([]);
  });
});

describe('ingestTrades and the Strat engine', () => {
  const at = (day: string, hhmm: string) => Date.parse(`${day}T${hhmm}:00Z`);
  let id = 0;
  const daily = (symbol: string, scale: number) =>
    (
      [
        ['2024-11-19', [100, 105, 95]],
        ['2024-11-20', [101, 103, 99]],
        ['2024-11-21', [102, 104]],
      ] as const
    ).flatMap(([day, prices]) =>
      prices.map((price, index) => ({
        symbol,
        price: price * scale,
        size: 1,
        timestamp: at(day, `15:0${index}`),
        tradeId: String(++id).padStart(6, '0'),
      })),
    );
  const crossing = (symbol: string, scale: number, minute: string) => ({
    symbol,
    price: 104.5 * scale,
    size: 1,
    timestamp: at('2024-11-22', `15:${minute}`),
    tradeId: String(++id).padStart(6, '0'),
  });

  it('appends the daily in-force alerts once, a simultaneous break of two futures, and the changed states', async () => {
    const stores = inMemoryIngestPorts(at('2024-11-22', '16:00'));
    await ingestTrades([...daily('ES1!', 50), ...daily('NQ1!', 200)], stores);
    const batch = [crossing('ES1!', 50, '10'), crossing('NQ1!', 200, '12')];

    const outcome = await ingestTrades(batch, stores);

    const dailyAlerts = stores.alerts.events.filter(({ body }) => body.timeframe === 'D');
    expect(dailyAlerts.map(({ body }) => body)).toEqual([
      {
        symbol: 'ES1!',
        timeframe: 'D',
        direction: 'bullish',
        shape: '1-2U',
        price: 5225,
        triggered_at: '2024-11-22T15:10:00.000Z',
        cc: '2U',
      },
      {
        symbol: 'NQ1!',
        timeframe: 'D',
        direction: 'bullish',
        shape: '1-2U',
        price: 20900,
        triggered_at: '2024-11-22T15:12:00.000Z',
        cc: '2U',
      },
    ]);
    expect(stores.breaks.events.map(({ body }) => body)).toContainEqual({
      timeframe: 'D',
      direction: 'bullish',
      threshold: 2,
      symbols: ['ES1!', 'NQ1!'],
      triggered_at: '2024-11-22T15:12:00.000Z',
    });
    expect(outcome.alerts).toBe(stores.alerts.events.length);
    expect(stores.states.states.get('ES1!')?.setups.find((row) => row.timeframe === 'D')).toMatchObject({
      shape: '1-2U',
      in_force: true,
    });
    expect(
      [...stores.setups.rows.values()].some((row) => row.symbol === 'NQ1!' && row.timeframe === 'D'),
    ).toBe(true);

    const alertsBefore = stores.alerts.events.length;
    const breaksBefore = stores.breaks.events.length;
    await ingestTrades(batch, stores);
    expect(stores.alerts.events).toHaveLength(alertsBefore);
    expect(stores.breaks.events).toHaveLength(breaksBefore);
  });

  it("marks a commit's alerts with the alerts feed's head read before it and appends them from there, so a recovery after a stop appends them once", async () => {
    const stores = inMemoryIngestPorts(at('2024-11-22', '16:00'));
    await ingestTrades([...daily('ES1!', 50), ...daily('NQ1!', 200)], stores);
    // Another writer's alert: the head is past 0.
    await stores.alerts.append([
      {
        onceKey: 'other',
        triggeredAtMs: at('2024-11-22', '15:00'),
        body: {
          symbol: 'AAPL',
          timeframe: '15',
          direction: 'bullish',
          shape: '1-2U',
          price: 1,
          triggered_at: '2024-11-22T15:00:00.000Z',
          cc: '2U',
        },
      },
    ]);
    const headBefore = await stores.alerts.head();
    const calls: string[] = [];
    let stopped = false;
    const stopping = {
      ...stores,
      alerts: Object.assign(Object.create(stores.alerts) as typeof stores.alerts, {
        head: async () => {
          calls.push('head');
          return stores.alerts.head();
        },
        // The writer stops right after appending its alerts, before anything else it derives.
        append: async (...args: Parameters<typeof stores.alerts.append>) => {
          calls.push(`append after ${args[1]?.knownHead}`);
          const appended = await stores.alerts.append(...args);
          stopped = true;
          throw new Error(`the writer stopped after appending ${appended}`);
        },
      }),
      ledgers: Object.assign(Object.create(stores.ledgers) as typeof stores.ledgers, {
        put: async (...args: Parameters<typeof stores.ledgers.put>) => {
          calls.push('put');
          return stores.ledgers.put(...args);
        },
      }),
    };
    const batch = [crossing('ES1!', 50, '10'), crossing('NQ1!', 200, '12')];
    await expect(ingestTrades(batch, stopping)).rejects.toThrow('stopped after appending');
    expect(stopped).toBe(true);
    // The head read once, before the commits; the alerts appended from it, with no second read.
    expect(calls).toEqual(['head', 'put', 'put', `append after ${headBefore}`]);
    expect((await stores.ledgers.get('ES1!'))?.pending?.alertsMadeAfterId).toBe(headBefore);
    const appended = stores.alerts.events.length;
    expect(appended).toBeGreaterThan(headBefore);

    const again = await ingestTrades(batch, stores);

    expect(again).toMatchObject({ recovered: 2, alerts: 0 });
    expect(stores.alerts.events).toHaveLength(appended);
  });
});

/** The ledger store as seen by a writer that another writer beats to `symbol`'s ledger `times` times. */
function racedLedgers(stores: ReturnType<typeof ports>, symbol: string, times: number) {
  let left = times;
  const store = stores.ledgers;
  return Object.assign(Object.create(store) as typeof store, {
    put: async (...args: Parameters<typeof store.put>) => {
      const [ledger] = args;
      if (ledger.symbol === symbol && left > 0) {
        left--;
        // The other writer commits the stored ledger again (a new version, nothing else changed).
        const stored = await store.get(symbol);
        if (stored) await store.put(stored.ledger, stored.version, stored.pending);
      }
      return store.put(...args);
    },
  });
}

/** Trades received = applied + folded late + refused (every reason) + handed back for a redelivery. */
function accounted(outcome: Awaited<ReturnType<typeof ingestTrades>>): number {
  const refused = Object.values(outcome.refused).reduce((sum, count) => sum + count, 0);
  return outcome.applied + outcome.latePrints + refused + outcome.handedBack;
}

describe('ingestTrades: no self-inflicted retries, honest counts', () => {
  it('folds again onto a ledger another writer committed meanwhile, instead of failing the batch', async () => {
    const stores = ports();
    await ingestTrades([trade('AAPL', 0, 100, 10, 1)], stores);
    const raced = { ...stores, ledgers: racedLedgers(stores, 'AAPL', 2) };

    const outcome = await ingestTrades([trade('AAPL', 1, 101, 1, 2), trade('AAPL', 2, 102, 1, 3)], raced);

    expect(outcome).toMatchObject({ applied: 2, failedSymbols: [], handedBack: 0 });
    expect((await stores.ledgers.get('AAPL'))?.ledger.forming['1d']).toMatchObject({
      volume: 12,
      close: 102,
    });
    expect((await stores.prices.getMany(['AAPL']))[0]?.price).toBe(102);
  });

  it('hands back a symbol that keeps losing, counting its trades as handed back and nothing else', async () => {
    const stores = ports();
    await ingestTrades([trade('AAPL', 0, 100, 10, 1)], stores);
    const racing = { ...stores, ledgers: losingLedgers(stores.ledgers, 'AAPL') };

    const batch = [trade('AAPL', 1, 101, 1, 2), trade('AAPL', 2, 102, 1, 3), trade('MSFT', 1, 50, 1, 4)];
    const outcome = await ingestTrades(batch, racing);

    expect(outcome).toMatchObject({ applied: 1, handedBack: 2, failedSymbols: ['AAPL'] });
    expect(accounted(outcome)).toBe(batch.length);
  });

  it('counts the first half of a bisected redelivery as redelivered, though its writer stopped before logging it', async () => {
    const stores = ports();
    const batch = [trade('AAPL', 0, 100, 10, 1), trade('AAPL', 1, 101, 20, 2), trade('AAPL', 2, 102, 5, 3)];
    const crashing = {
      ...stores,
      tradeLog: Object.assign(Object.create(stores.tradeLog) as typeof stores.tradeLog, {
        write: async (entries: readonly unknown[]) => {
          if (entries.length > 0) throw new Error('the writer stopped here');
        },
      }),
    };
    await expect(ingestTrades(batch, crashing)).rejects.toThrow('stopped');

    const firstHalf = await ingestTrades(batch.slice(0, 2), stores);

    expect(firstHalf).toMatchObject({ applied: 0, refused: { redelivered: 2, late: 0 } });
  });

  it('counts every trade of a replay with redeliveries once: applied, late, or refused with its reason', async () => {
    const stores = ports();
    // Three symbols, a trade a second for ten minutes, delivered in batches of 50 records; every third batch
    // is delivered again (a partial batch response retries from its first failed record), and again later.
    const trades: Trade[] = [];
    for (let second = 0; second < 600; second++) {
      for (const [index, symbol] of ['AAPL', 'MSFT', 'SPY'].entries()) {
        trades.push({
          symbol,
          price: 100 + index + (second % 7),
          size: 1,
          timestamp: open + second * 1_000,
          tradeId: `${symbol}-${second}`,
        });
      }
    }
    const batches: Trade[][] = [];
    for (let start = 0; start < trades.length; start += 50) batches.push(trades.slice(start, start + 50));
    // Two real late prints past the window, never applied before, delivered once: the only `late` there is.
    const latePrints = [
      { ...trade('AAPL', 0, 100, 1, 0), timestamp: open + 500, tradeId: 'late-1' },
      { ...trade('MSFT', 0, 100, 1, 0), timestamp: open + 500, tradeId: 'late-2' },
    ];
    const deliveries = batches.flatMap((batch, index) =>
      index % 3 === 0 && index > 2 ? [batch, batches[index - 3] as Trade[], batch] : [batch],
    );
    deliveries.push(latePrints);
    batches.push(latePrints);
    trades.push(...latePrints);

    const totals = { received: 0, accounted: 0, applied: 0, late: 0, redelivered: 0, duplicate: 0 };
    for (const delivery of deliveries) {
      const outcome = await ingestTrades(delivery, stores);
      totals.received += delivery.length;
      totals.accounted += accounted(outcome);
      totals.applied += outcome.applied + outcome.latePrints;
      totals.late += outcome.refused.late;
      totals.redelivered += outcome.refused.redelivered;
      totals.duplicate += outcome.refused.duplicate;
    }

    const redeliveredTrades = deliveries.length - batches.length;
    expect(totals.accounted).toBe(totals.received);
    expect(totals.applied).toBe(trades.length - 2);
    expect(totals.late).toBe(2);
    expect(totals.redelivered + totals.duplicate).toBe(totals.received - trades.length);
    expect(redeliveredTrades).toBeGreaterThan(0);
    expect(totals.redelivered).toBeGreaterThan(0);
  });
});
