import { describe, expect, it } from 'vitest';
import { TradeIdentityWindow, tradeIdentity } from '#domain/feed/trade-identity';

const MINUTE = 60_000;
/** 2026-11-25 15:00 UTC: 10:00 in New York. */
const DAY_ONE = Date.parse('2026-11-25T15:00:00Z');
const DAY_TWO = DAY_ONE + 24 * 60 * MINUTE;

const trade = (tradeId: string, timestamp: number, symbol = 'AAPL') => ({ symbol, tradeId, timestamp });

describe('tradeIdentity', () => {
  it('is the symbol, the New York date of the trade and the provider id', () => {
    expect(tradeIdentity(trade('D-7', DAY_ONE))).toBe('AAPL|2026-11-25|D-7');
    // 03:30 UTC on the 26th is still the 25th in New York.
    expect(tradeIdentity(trade('D-7', Date.parse('2026-11-26T03:30:00Z')))).toBe('AAPL|2026-11-25|D-7');
  });
});

describe('TradeIdentityWindow', () => {
  it('admits the same id on two dates: ids restart each session', () => {
    const window = new TradeIdentityWindow({ windowMs: 5 * MINUTE, maxIds: 100 });
    expect(window.admit(trade('D-1', DAY_ONE))).toBe(true);
    expect(window.admit(trade('D-1', DAY_TWO))).toBe(true);
  });

  it('refuses a replay within the window, once', () => {
    const window = new TradeIdentityWindow({ windowMs: 5 * MINUTE, maxIds: 100 });
    expect(window.admit(trade('D-1', DAY_ONE))).toBe(true);
    expect(window.admit(trade('D-2', DAY_ONE + MINUTE))).toBe(true);
    expect(window.admit(trade('D-1', DAY_ONE))).toBe(false);
    expect(window.admit(trade('D-1', DAY_ONE, 'MSFT'))).toBe(true);
  });

  it('admits two trades of one exchange and id whose trade ids differ (two TRFs)', () => {
    const window = new TradeIdentityWindow({ windowMs: 5 * MINUTE, maxIds: 100 });
    expect(window.admit(trade('4-201-9', DAY_ONE))).toBe(true);
    expect(window.admit(trade('4-202-9', DAY_ONE))).toBe(true);
  });

  it('forgets ids older than the window behind the newest trade', () => {
    const window = new TradeIdentityWindow({ windowMs: 5 * MINUTE, maxIds: 100 });
    window.admit(trade('D-1', DAY_ONE));
    window.admit(trade('D-2', DAY_ONE + 5 * MINUTE));
    expect(window.size).toBe(2);
    window.admit(trade('D-3', DAY_ONE + 5 * MINUTE + 1));
    expect(window.size).toBe(2);
    expect(window.evictedEarly).toBe(0);
  });

  it('keeps at most the cap, counting the ids it forgot while still inside the window', () => {
    const window = new TradeIdentityWindow({ windowMs: 5 * MINUTE, maxIds: 3 });
    for (let n = 1; n <= 5; n++) window.admit(trade(`D-${n}`, DAY_ONE + n));
    expect(window.size).toBe(3);
    expect(window.evictedEarly).toBe(2);
    expect(window.admit(trade('D-5', DAY_ONE + 5))).toBe(false);
  });
});
