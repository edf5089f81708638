import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeLedger,
  decodeRecentBars,
  encodeLedger,
  encodeRecentBars,
  LEDGER_DICTIONARY,
} from '#adapters/dynamo/ledger-codec';
import type { SymbolLedger } from '#domain/market-data/ledger';
import { foldTrades } from '#domain/strat/trade-fold';
import { syntheticTrades } from '../../../support/trade-streams.ts';

/** A symbol's ledger after three sessions of one trade every `secondsApart` seconds, and its last batch. */
function foldedLedger(secondsApart: number): { ledger: SymbolLedger; pending: unknown } {
  const seconds = Array.from({ length: 60 / secondsApart }, (_, index) => index * secondsApart);
  const trades = syntheticTrades('AAPL', 180, seconds, 11);
  let ledger: SymbolLedger | undefined;
  for (let start = 0; start < trades.length; start += 50) {
    ledger = foldTrades(ledger, 'AAPL', trades.slice(start, start + 50)).ledger;
  }
  const last = trades.at(-1);
  return {
    ledger: ledger as SymbolLedger,
    pending: { bars: [], alerts: [], batchMark: { timestamp: last?.timestamp, tradeId: last?.tradeId } },
  };
}

describe('the ledger codec', () => {
  it('gives back exactly the ledger and pending writes it encoded', () => {
    const stored = foldedLedger(10);
    expect(decodeLedger(encodeLedger(stored))).toEqual(stored);
    expect(decodeLedger(encodeLedger({ ledger: stored.ledger }))).toEqual({ ledger: stored.ledger });
  });

  it('keeps every number exactly, fractions and large volumes included', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.0001, max: 1e6, noNaN: true }),
        fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        (price, volume) => {
          const ledger: SymbolLedger = {
            symbol: 'X',
            forming: {},
            price: { price, volume, timestamp: 1_732_222_799_123, tradeId: '4-201-12345' },
          };
          expect(decodeLedger(encodeLedger({ ledger })).ledger).toEqual(ledger);
        },
      ),
    );
  });

  it('stores a ledger with its intraday history in about a write unit, a sixth of its JSON', () => {
    const stored = foldedLedger(6);
    const json = Buffer.byteLength(JSON.stringify(stored));
    const encoded = encodeLedger(stored).length;
    expect(encoded).toBeLessThan(1_100);
    expect(encoded * 5).toBeLessThan(json);
  });

  it('stores the ledger without its recent bars in under 400 bytes, and the recent bars apart, exactly', () => {
    const { ledger } = foldedLedger(6);
    const { recent, ...hot } = ledger;
    expect(recent?.['15m']).toHaveLength(11);
    expect(encodeLedger({ ledger: hot }).length).toBeLessThan(400);
    expect(decodeRecentBars(encodeRecentBars(recent ?? {}))).toEqual(recent);
  });

  it('refuses bytes of a format it does not know instead of guessing', () => {
    const bytes = encodeLedger(foldedLedger(30));
    bytes[0] = 2;
    expect(() => decodeLedger(bytes)).toThrow(/unknown format 2/);
  });

  it('keeps format 1 readable: its dictionary never changes', () => {
    // Ledgers written with this dictionary can only be read with it: a better one is a new format byte.
    expect(createHash('sha256').update(LEDGER_DICTIONARY).digest('hex')).toBe(
      '02d35e1b4fc110ee781f377f87e3f6b1d3462b6af08a3faf519753c6363a3b75',
    );
  });
});
