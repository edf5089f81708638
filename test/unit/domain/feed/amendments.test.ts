import { describe, expect, it } from 'vitest';
import { amendPending } from '#domain/feed/amendments';
import type { Trade } from '#domain/market-data/bars';

const trade = (tradeId: string, price = 10): Trade => ({
  symbol: 'AAPL',
  price,
  size: 100,
  timestamp: 1_700_000_000_000,
  tradeId,
});

describe('amendPending', () => {
  it('removes a cancelled trade still held', () => {
    const pending = [trade('1'), trade('2'), trade('3')];
    expect(amendPending(pending, { kind: 'cancel', symbol: 'AAPL', tradeId: '2' })).toBe('applied');
    expect(pending.map((t) => t.tradeId)).toEqual(['1', '3']);
  });

  it('replaces a corrected trade in place, keeping the order', () => {
    const pending = [trade('1'), trade('2'), trade('3')];
    const corrected = trade('9', 11);
    expect(amendPending(pending, { kind: 'correction', symbol: 'AAPL', tradeId: '2', corrected })).toBe(
      'applied',
    );
    expect(pending.map((t) => t.tradeId)).toEqual(['1', '9', '3']);
  });

  it('removes a trade whose correction excludes it', () => {
    const pending = [trade('1')];
    amendPending(pending, { kind: 'correction', symbol: 'AAPL', tradeId: '1', corrected: undefined });
    expect(pending).toEqual([]);
  });

  it('records an amendment of a trade already put, changing nothing', () => {
    const pending = [trade('1')];
    expect(amendPending(pending, { kind: 'cancel', symbol: 'MSFT', tradeId: '1' })).toBe('recorded');
    expect(amendPending(pending, { kind: 'cancel', symbol: 'AAPL', tradeId: '7' })).toBe('recorded');
    expect(pending).toHaveLength(1);
  });
});
