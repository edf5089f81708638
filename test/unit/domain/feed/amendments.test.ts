import { describe, expect, it } from 'vitest';
import { amendPending } from '#domain/feed/amendments';
import type { StreamItem, Trade } from '#domain/market-data/bars';

const AT = 1_700_000_000_000;

const trade = (tradeId: string, price = 10): Trade => ({
  symbol: 'AAPL',
  price,
  size: 100,
  timestamp: AT,
  tradeId,
});

describe('amendPending', () => {
  it('removes a cancelled trade still held', () => {
    const pending = [trade('1'), trade('2'), trade('3')];
    expect(amendPending(pending, { kind: 'cancel', symbol: 'AAPL', tradeId: '2', timestamp: AT })).toBe(
      'applied',
    );
    expect(pending.map((t) => t.tradeId)).toEqual(['1', '3']);
  });

  it('replaces a corrected trade in place, keeping the order', () => {
    const pending = [trade('1'), trade('2'), trade('3')];
    const corrected = trade('9', 11);
    expect(
      amendPending(pending, { kind: 'correction', symbol: 'AAPL', tradeId: '2', timestamp: AT, corrected }),
    ).toBe('applied');
    expect(pending.map((t) => t.tradeId)).toEqual(['1', '9', '3']);
  });

  it('removes a trade whose correction excludes it', () => {
    const pending = [trade('1')];
    amendPending(pending, {
      kind: 'correction',
      symbol: 'AAPL',
      tradeId: '1',
      timestamp: AT,
      corrected: undefined,
    });
    expect(pending).toEqual([]);
  });

  it('forwards an amendment of a trade already put: it follows in the queue, as the stream carries it', () => {
    const pending: StreamItem[] = [trade('1')];
    expect(amendPending(pending, { kind: 'cancel', symbol: 'MSFT', tradeId: '1', timestamp: AT })).toBe(
      'forwarded',
    );
    const corrected = { ...trade('8', 12), volumeOnly: true };
    expect(
      amendPending(pending, {
        kind: 'correction',
        symbol: 'AAPL',
        tradeId: '7',
        timestamp: AT - 5,
        corrected,
      }),
    ).toBe('forwarded');
    expect(
      amendPending(pending, {
        kind: 'correction',
        symbol: 'AAPL',
        tradeId: '6',
        timestamp: AT,
        corrected: undefined,
      }),
    ).toBe('forwarded');
    expect(pending).toEqual([
      trade('1'),
      { symbol: 'MSFT', amends: '1', timestamp: AT },
      {
        symbol: 'AAPL',
        amends: '7',
        timestamp: AT - 5,
        corrected: { price: 12, size: 100, tradeId: '8', volumeOnly: true },
      },
      { symbol: 'AAPL', amends: '6', timestamp: AT },
    ]);
  });
});
