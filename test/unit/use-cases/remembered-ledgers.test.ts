import { describe, expect, it } from 'vitest';
import { emptyLedger } from '#domain/market-data/ledger';
import { RememberedLedgers } from '#use-cases/remembered-ledgers';
import { InMemoryLedgerStore } from '../../support/fakes.ts';

/** The in-memory store, counting the symbols read from it. */
class CountingLedgerStore extends InMemoryLedgerStore<{ writes: string[] }> {
  symbolsRead = 0;

  override async getMany(symbols: readonly string[]) {
    this.symbolsRead += symbols.length;
    return super.getMany(symbols);
  }
}

/** AAPL's first ledger as storage holds it, committed with these writes. */
const firstVersionWith = (write: string) => ({
  ledger: emptyLedger('AAPL'),
  version: 0,
  pending: { writes: [write] },
});

describe('RememberedLedgers', () => {
  it('reads a symbol from storage once, then hands out its remembered copy, frozen, without copying it again', async () => {
    const stored = new CountingLedgerStore();
    await stored.put(emptyLedger('AAPL'), undefined, { writes: ['bar'] });
    const ledgers = new RememberedLedgers(stored);
    const first = (await ledgers.get('AAPL')) as NonNullable<Awaited<ReturnType<typeof ledgers.get>>>;
    const second = await ledgers.get('AAPL');
    expect(stored.symbolsRead).toBe(1);
    expect(second).toBe(first);
    expect(() => {
      (first.ledger as { symbol: string }).symbol = 'MSFT';
    }).toThrow(TypeError);
    expect(() => first.pending?.writes.push('another')).toThrow(TypeError);
    expect(await ledgers.get('AAPL')).toEqual(firstVersionWith('bar'));
  });

  it('remembers what a writer commits as it is, frozen: the writer hands it over', async () => {
    const stored = new CountingLedgerStore();
    const ledgers = new RememberedLedgers(stored);
    expect(await ledgers.get('AAPL')).toBeUndefined();
    const ledger = emptyLedger('AAPL');
    const pending = { writes: ['bar'] };
    expect(await ledgers.put(ledger, undefined, pending)).toBe(true);
    const remembered = await ledgers.get('AAPL');
    expect(remembered?.ledger).toBe(ledger);
    expect(remembered?.pending).toBe(pending);
    expect(() => pending.writes.push('changed after the commit')).toThrow(TypeError);
    expect(stored.symbolsRead).toBe(1);
    // Storage holds its own copy, as it always did.
    expect(await stored.get('AAPL')).toEqual(firstVersionWith('bar'));
  });

  it('forgets a symbol whose commit lost to another writer: the next read goes to storage', async () => {
    const stored = new CountingLedgerStore();
    const ledgers = new RememberedLedgers(stored);
    await ledgers.get('AAPL');
    // Another writer commits first: this one's commit, onto no ledger, loses.
    await stored.put(emptyLedger('AAPL'), undefined, { writes: ['theirs'] });
    expect(await ledgers.put(emptyLedger('AAPL'), undefined, { writes: ['mine'] })).toBe(false);
    expect(await ledgers.get('AAPL')).toEqual(firstVersionWith('theirs'));
    expect(stored.symbolsRead).toBe(2);
  });
});
