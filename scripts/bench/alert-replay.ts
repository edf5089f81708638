import type { Trade } from '#domain/market-data/bars';
import type { SymbolLedger } from '#domain/market-data/ledger';
import { foldTrades } from '#domain/strat/trade-fold';
import { LocalTradeSink } from '../lib/local-trade-sink.ts';
import { seededRandom } from '../lib/seeded-random.ts';
import { startBenchStack } from './bench-stack.ts';
import { sleep } from './harness.ts';
import type { BenchResult } from './types.ts';

/** A regular week (New York 09:30-16:00 is 14:30-21:00 UTC in November). */
const SESSIONS = ['2024-11-18', '2024-11-19', '2024-11-20', '2024-11-21', '2024-11-22'] as const;
const SYMBOL = 'SPY';
const SECONDS_APART = 2;
/** The service clock: after the week's close, so no trade is in its future. */
const CLOCK_START = new Date('2024-11-22T21:30:00Z');
const DEADLINE_MS = 600_000;

/** A week of one symbol's trades, every 2 seconds on a seeded random walk around 590. */
export function weekOfTrades(seed = 7): Trade[] {
  const random = seededRandom(seed);
  const trades: Trade[] = [];
  let price = 590;
  for (const day of SESSIONS) {
    const open = Date.parse(`${day}T14:30:00Z`);
    for (let offset = 0; offset < 23_400; offset += SECONDS_APART) {
      price = Math.max(1, Math.round((price + (random() - 0.5) * 0.6) * 100) / 100);
      trades.push({
        symbol: SYMBOL,
        price,
        size: 1 + Math.floor(random() * 500),
        timestamp: open + offset * 1000,
        tradeId: `${day}-${offset}`,
      });
    }
  }
  return trades;
}

/** What the ingest must end with: the in-force alerts fired (the pure fold's count) and the last 1m bar. */
function expected(trades: readonly Trade[]) {
  let ledger: SymbolLedger | undefined;
  let alerts = 0;
  for (let start = 0; start < trades.length; start += 1_000) {
    const result = foldTrades(ledger, SYMBOL, trades.slice(start, start + 1_000));
    ledger = result.ledger;
    alerts += result.inForce.length;
  }
  const lastMinute = ledger?.forming['1m'];
  if (!lastMinute) throw new Error('alert replay: the week made no 1m bar');
  return { alerts, lastMinute };
}

/** Polls `read` every few milliseconds until it answers true; the time it did, from `startedMs`. */
async function whenTrue(read: () => Promise<boolean>, startedMs: number, what: string): Promise<number> {
  for (;;) {
    if (await read()) return performance.now() - startedMs;
    if (performance.now() - startedMs > DEADLINE_MS) throw new Error(`alert replay: ${what} not readable`);
    await sleep(20);
  }
}

/**
 * A week of one symbol replayed at full speed through the local stack (`npm run replay`'s path: the local
 * records endpoint, back-pressure included): when the week's last 1-minute candle is readable over REST,
 * and how long after it the week's last in-force alert is (the alerts the pure fold fires, ids 1..N of a new
 * stack's feed).
 */
export async function benchAlertReplay(): Promise<BenchResult> {
  const trades = weekOfTrades();
  const { alerts, lastMinute } = expected(trades);
  const stack = await startBenchStack(CLOCK_START);
  try {
    const headers = { 'X-API-Key': stack.demoKey };
    const getJson = async (path: string) => (await fetch(`${stack.restUrl}${path}`, { headers })).json();
    const started = performance.now();
    await new LocalTradeSink(new URL(stack.restUrl).origin).put(trades);
    const putMs = performance.now() - started;
    const candleMs = await whenTrue(
      async () => {
        const body = (await getJson(`/candles/${SYMBOL}?interval=1m&limit=1`)) as {
          bars?: { time: number; volume: number }[];
        };
        const last = body.bars?.at(-1);
        return last?.time === lastMinute.time && last.volume === lastMinute.volume;
      },
      started,
      'the last candle',
    );
    const alertMs = await whenTrue(
      async () => {
        const body = (await getJson(
          `/alerts/in-force?since_id=${alerts - 1}&limit=1&window_minutes=10080`,
        )) as { items?: { id: number }[] };
        return body.items?.[0]?.id === alerts;
      },
      started,
      `alert ${alerts}`,
    );
    const seconds = (ms: number) => Number((ms / 1000).toFixed(2));
    return {
      name: `A week of ${SYMBOL} (${trades.length} trades, ${alerts} in-force alerts) replayed at full speed`,
      figures: {
        'trades put, s': seconds(putMs),
        'last 1m candle readable, s': seconds(candleMs),
        'last alert readable, s': seconds(alertMs),
        'last alert after last candle, s': seconds(Math.max(0, alertMs - candleMs)),
      },
    };
  } finally {
    await stack.stop();
  }
}
