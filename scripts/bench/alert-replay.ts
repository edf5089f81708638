import type { Trade } from '#domain/market-data/bars';
import type { SymbolLedger } from '#domain/market-data/ledger';
import { foldTrades } from '#domain/strat/trade-fold';
import { LocalTradeSink } from '../lib/local-trade-sink.ts';
import type { LocalStack } from '../local/stack.ts';
import { startBenchStack } from './bench-stack.ts';
import { random, sessionTrades, until } from './harness.ts';
import type { BenchResult } from './types.ts';

/** A regular week. */
const SESSIONS = ['2024-11-18', '2024-11-19', '2024-11-20', '2024-11-21', '2024-11-22'] as const;
const SYMBOL = 'SPY';
/** A trade every 2 seconds of a session on average. */
const TRADES_PER_SESSION = 11_700;
/** The service clock: after the week's close, so no trade is in its future. */
const CLOCK_START = new Date('2024-11-22T21:30:00Z');
const DEADLINE_SECONDS = 600;

/** Whether in-force alert `id` is readable at GET /alerts/in-force (ids count from 1 in a new stack's feed). */
export async function inForceAlertReadable(stack: LocalStack, id: number, query = ''): Promise<boolean> {
  const response = await fetch(`${stack.restUrl}/alerts/in-force?since_id=${id - 1}&limit=1${query}`, {
    headers: { 'X-API-Key': stack.demoKey },
  });
  const body = (await response.json()) as { items?: { id: number }[] };
  return body.items?.[0]?.id === id;
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

/**
 * A week of one symbol replayed at full speed through the local stack (`npm run replay`'s path: the local
 * records endpoint, back-pressure included): when the week's last 1-minute candle is readable over REST,
 * and how long after it the week's last in-force alert is (the alerts the pure fold fires, ids 1..N of a new
 * stack's feed).
 */
export async function benchAlertReplay(): Promise<BenchResult> {
  const trades = sessionTrades(SYMBOL, SESSIONS, TRADES_PER_SESSION, 590, random(7));
  const { alerts, lastMinute } = expected(trades);
  const stack = await startBenchStack(CLOCK_START);
  try {
    const headers = { 'X-API-Key': stack.demoKey };
    const started = performance.now();
    await new LocalTradeSink(new URL(stack.restUrl).origin).put(trades);
    const putMs = performance.now() - started;
    await until(
      async () => {
        const response = await fetch(`${stack.restUrl}/candles/${SYMBOL}?interval=1m&limit=1`, { headers });
        const last = ((await response.json()) as { bars?: { time: number; volume: number }[] }).bars?.at(-1);
        return last?.time === lastMinute.time && last.volume === lastMinute.volume;
      },
      'alert replay: the last candle',
      DEADLINE_SECONDS,
      20,
    );
    const candleMs = performance.now() - started;
    await until(
      () => inForceAlertReadable(stack, alerts, '&window_minutes=10080'),
      `alert replay: alert ${alerts}`,
      DEADLINE_SECONDS,
      20,
    );
    const alertMs = performance.now() - started;
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
