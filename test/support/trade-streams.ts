import type { Trade } from '#domain/market-data/bars';
import { breakFeedEvent, inForceFeedEvent } from '#domain/strat/alerts';
import { DEFAULT_BREAK_WINDOW_MS, simultaneousBreaks } from '#domain/strat/breaks';
import type { InForceEvent } from '#domain/strat/in-force';
import { foldTrades } from '#domain/strat/trade-fold';

/** Three regular sessions (EST: 14:30-21:00 UTC). */
export const SESSIONS = ['2024-11-19', '2024-11-20', '2024-11-21'] as const;

/**
 * A deterministic market: per symbol and session minute, trades at the given seconds of the minute, on a
 * random walk (a seeded generator), trade ids counting up per symbol.
 */
export function syntheticTrades(
  symbol: string,
  base: number,
  secondsOfMinute: readonly number[],
  seed: number,
) {
  let state = seed;
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
  let price = base;
  let id = 0;
  const trades: Trade[] = [];
  for (const day of SESSIONS) {
    const open = Date.parse(`${day}T14:30:00Z`);
    for (let minute = 0; minute < 390; minute++) {
      for (const second of secondsOfMinute) {
        price = Math.max(1, Math.round((price + (random() - 0.5) * base * 0.004) * 100) / 100);
        trades.push({
          symbol,
          price,
          size: 1 + Math.floor(random() * 300),
          timestamp: open + minute * 60_000 + second * 1000,
          tradeId: String(++id),
        });
      }
    }
  }
  return trades;
}

/** Each session's total volume of the trades. */
export function volumeBySession(trades: readonly Trade[]): Record<string, number> {
  const totals: Record<string, number> = {};
  for (const trade of trades) {
    const day = new Date(trade.timestamp).toISOString().slice(0, 10);
    totals[day] = (totals[day] ?? 0) + trade.size;
  }
  return totals;
}

/** The in-force alerts' natural keys a fault-free ingest of these streams (each in its order) appends. */
export function referenceAlerts(streams: readonly (readonly Trade[])[]): {
  alerts: string[];
  breaks: string[];
} {
  const events: InForceEvent[] = [];
  for (const trades of streams) {
    const symbol = trades[0]?.symbol ?? '';
    events.push(...foldTrades(undefined, symbol, trades).inForce);
  }
  return {
    alerts: events.map((event) => inForceFeedEvent(event).onceKey).sort(),
    breaks: simultaneousBreaks(events, DEFAULT_BREAK_WINDOW_MS)
      .map((event) => breakFeedEvent(event).onceKey)
      .sort(),
  };
}
