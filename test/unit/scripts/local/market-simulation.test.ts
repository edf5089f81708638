import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isAmendment, type Trade } from '#domain/market-data/bars';
import type { LedgerStore, VersionedLedger } from '#domain/market-data/ports';
import { decodeTradeRecord } from '#domain/market-data/trade-records';
import type { HistoryTarget } from '#scripts/lib/history-import';
import { UNIVERSE_CSV } from '#scripts/lib/project';
import { parseUniverseCsv } from '#scripts/lib/universe';
import { startMarketSimulation } from '#scripts/local/market-simulation';
import type { LocalTradeStream } from '#scripts/local/trade-stream';
import { FEED_CONNECTOR_SETTINGS } from '#use-cases/feed-connector';

const SYMBOLS = ['SPY', 'QQQ', 'AAPL', 'MSFT'];
const INSTRUMENTS = parseUniverseCsv(readFileSync(UNIVERSE_CSV, 'utf8')).filter(({ symbol }) =>
  SYMBOLS.includes(symbol),
);
/** A Tuesday, 10:00 in New York: the market is open. */
const SERVICE_START_MS = Date.parse('2024-11-26T15:00:00Z');
const SPEED = 20;

/** Every symbol has a stored price: a restart, so no history is written. */
const storedLedgers = {
  getMany: async (symbols: readonly string[]) =>
    new Map(
      symbols.map((symbol) => [
        symbol,
        {
          version: 0,
          ledger: { symbol, forming: {}, price: { price: 100, volume: 1, timestamp: 0, tradeId: 'x' } },
        } as VersionedLedger,
      ]),
    ),
} as unknown as LedgerStore;

describe('the local market simulation', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('hands its trades to the stream as often as the feed connector puts them on AWS', async () => {
    const nowMs = () => SERVICE_START_MS + Date.now() * SPEED;
    const puts: { atMs: number; trades: Trade[] }[] = [];
    const stream = {
      hasRoom: () => true,
      put: (records: readonly { partitionKey: string; data: string }[]) => {
        const trades = records.flatMap(({ data }) => decodeTradeRecord(data) ?? []);
        puts.push({ atMs: nowMs(), trades: trades.filter((item): item is Trade => !isAmendment(item)) });
      },
    } as unknown as LocalTradeStream;
    const simulation = await startMarketSimulation({
      seed: 1,
      instruments: INSTRUMENTS,
      nowMs,
      stream,
      ledgers: storedLedgers,
      history: {} as HistoryTarget,
      log: () => {},
    });
    await simulation.backfilled;

    await vi.advanceTimersByTimeAsync(1_000);
    await simulation.stop();

    const stepMs = FEED_CONNECTOR_SETTINGS.flushIntervalMs;
    expect(puts).toHaveLength(1_000 / stepMs);
    for (const { atMs, trades } of puts) {
      expect(trades.length).toBeGreaterThan(0);
      // Each put holds what was printed since the step before: at most one step old, in service time.
      for (const trade of trades) {
        expect(trade.timestamp).toBeLessThanOrEqual(atMs);
        expect(atMs - trade.timestamp).toBeLessThanOrEqual(stepMs * SPEED);
      }
    }
  });
});
