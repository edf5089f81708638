import { describe, expect, it, vi } from 'vitest';
import type { Instrument } from '#domain/market-data/instruments';
import type { SimultaneousBreakBody } from '#domain/strat/alerts';
import { foldTrades } from '#domain/strat/trade-fold';
import { createHandler } from '#handlers/schedule/clock-tick';
import { trade, tradeIds } from '../../../support/builders.ts';
import {
  InMemoryEventFeed,
  InMemoryLedgerStore,
  InMemorySetupStore,
  InMemoryStateStore,
} from '../../../support/fakes.ts';

const at = (hhmmss: string) => Date.parse(`2024-11-26T${hhmmss}Z`);
const ids = tradeIds();

/** A clock tick over one symbol that traded in each 15 minutes from the open through 15:20 (10:20 in New York). */
async function setUp() {
  const ledgers = new InMemoryLedgerStore();
  const { ledger } = foldTrades(undefined, 'AAPL', [
    trade(at('14:31:00'), 100, { size: 1, ids }),
    trade(at('14:46:00'), 102, { size: 1, ids }),
    trade(at('15:01:00'), 99, { size: 1, ids }),
    trade(at('15:16:00'), 101, { size: 1, ids }),
    trade(at('15:20:00'), 103, { size: 1, ids }),
  ]);
  await ledgers.put(ledger, undefined);
  const states = new InMemoryStateStore();
  const setups = new InMemorySetupStore();
  let now = at('15:21:00');
  const tick = createHandler({
    universe: async () =>
      new Map([['AAPL', { symbol: 'AAPL', active: true, sector: 'Information Technology' } as Instrument]]),
    ledgers: () => ledgers,
    stateSync: () => ({ states, setups }),
    nowMs: () => now,
    throughput: () => ({
      breaks: new InMemoryEventFeed<SimultaneousBreakBody>(),
      target: { current: async () => undefined, apply: async () => {} },
    }),
  });
  return { ledgers, states, setups, tick, setNow: (iso: string) => (now = at(iso)) };
}

describe('the clock tick', () => {
  it('rolls the states over once a quarter-hour, at its first tick a minute into it, and not at the others', async () => {
    const { ledgers, tick, setNow } = await setUp();
    const reads = vi.spyOn(ledgers, 'getMany');

    for (const time of ['15:21:00', '15:22:00', '15:30:01', '15:30:59', '15:31:00', '15:32:00', '15:45:30']) {
      setNow(time);
      await tick();
    }

    expect(reads).toHaveBeenCalledTimes(2);
  });

  it('writes the state of a symbol whose 15-minute bar ended without a trade a minute into the next quarter-hour', async () => {
    const { states, tick, setNow } = await setUp();
    await tick();
    const during = states.states.get('AAPL');

    setNow('15:31:05');
    const { changed } = await tick();

    expect(changed).toBe(1);
    expect(states.states.get('AAPL')?.setups).not.toEqual(during?.setups);
  });

  it('leaves unread the ledger of a state derived since the last quarter-hour, and derives one from before it', async () => {
    const { ledgers, states, tick, setNow } = await setUp();
    const reads = vi.spyOn(ledgers, 'getMany');
    setNow('15:30:00');
    await tick();
    const derivedAtEdge = states.states.get('AAPL');

    setNow('15:44:59');
    const sameQuarter = await tick();
    setNow('15:46:00');
    const nextQuarter = await tick();

    // Derived exactly at 15:30 (the quarter-hour's own edge counts): current at 15:44:59, not at 15:46.
    expect(derivedAtEdge?.updatedAtMs).toBe(at('15:30:00'));
    expect(sameQuarter).toMatchObject({ derived: 0, changed: 0 });
    // Read and derived again, though no period of it ended at 15:45: nothing to write.
    expect(nextQuarter).toMatchObject({ derived: 1, changed: 0 });
    expect(reads.mock.calls).toEqual([[['AAPL']], [['AAPL']]]);
  });

  it('compares the setup rows with the states at its first tick, then once a quarter-hour, half-way through it', async () => {
    const { setups, tick, setNow } = await setUp();
    const sweeps = vi.spyOn(setups, 'list');
    const repairedAt: string[] = [];

    for (const time of [
      '15:21:00',
      '15:22:29',
      '15:22:30',
      '15:31:00',
      '15:37:29',
      '15:37:30',
      '15:46:00',
      '15:52:30',
    ]) {
      setNow(time);
      const before = sweeps.mock.calls.length;
      await tick();
      // One sweep lists every timeframe's rows.
      if (sweeps.mock.calls.length > before) repairedAt.push(time);
    }

    // Not at the roll's tick a minute into the quarter-hour (15:31), seven and a half minutes into it.
    expect(repairedAt).toEqual(['15:21:00', '15:22:30', '15:37:30', '15:52:30']);
  });

  it('rolls again at the next tick when a roll failed', async () => {
    const { ledgers, tick, setNow } = await setUp();
    const reads = vi.spyOn(ledgers, 'getMany').mockRejectedValueOnce(new Error('throttled'));

    await expect(tick()).rejects.toThrow('throttled');
    setNow('15:22:00');
    await tick();

    expect(reads).toHaveBeenCalledTimes(2);
  });
});
