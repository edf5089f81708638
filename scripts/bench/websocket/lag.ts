/**
 * The push path's lag: from a trade's put on the trades stream to the arrival of the `quotes` message that
 * carries it, with one account subscribed and with SUBSCRIBERS accounts on the same symbols.
 */
import type { MetricPoint } from '#runtime/metric-points';
import { observeMetrics } from '../../local/metric-points.ts';
import type { LocalStack } from '../../local/stack.ts';
import { lagSummary } from '../harness.ts';
import { HOP_METRICS, hopsResult } from '../hops.ts';
import type { BenchResult } from '../types.ts';
import { type ClientHost, integrityFigures } from './client-host.ts';
import { type Collected, now } from './protocol.ts';
import { drain } from './stack-settling.ts';
import type { TradeSource } from './trade-source.ts';
import { SUBSCRIBERS, SYMBOLS } from './workload.ts';

const LAG_ALONE = { tradesPerSecond: 100, seconds: 20 };
/**
 * With 500 subscribers every quote is 500 messages, and the local path delivers a few hundred to a few
 * thousand a second: the shared lag is measured at this share of the saturation rate measured just before,
 * so that it is the path's lag, not a queue's growth.
 */
const LAG_SHARED = { shareOfSaturation: 0.5, seconds: 25 };
/** Trades put before the lag is measured: the ingest path's first writes of each symbol and its JIT. */
const LAG_WARM_UP_SECONDS = 3;

/**
 * Steady trades round robin over the 50 symbols for LAG_WARM_UP_SECONDS, then `seconds` measured: the lag
 * of every quote message at every client from the put of the trade it carries (measured trades only).
 */
async function measureLag(
  stack: LocalStack,
  host: ClientHost,
  trades: TradeSource,
  run: { tradesPerSecond: number; seconds: number },
): Promise<{
  collected: Collected;
  put: number;
  observer: number[];
  all: number[];
  latest: string;
  hops: MetricPoint[];
}> {
  await host.record(false);
  const hops: MetricPoint[] = [];
  let measuring = false;
  const stopObserving = observeMetrics((point) => {
    if (measuring && HOP_METRICS.includes(point.id)) hops.push(point);
  });
  const started = performance.now();
  const measuredFrom = now() + LAG_WARM_UP_SECONDS * 1000;
  const totalMs = (LAG_WARM_UP_SECONDS + run.seconds) * 1000;
  let put = 0;
  let measured = 0;
  const traded = new Set<number>();
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const elapsed = performance.now() - started;
      const due = Math.min(totalMs, elapsed) * (run.tradesPerSecond / 1000);
      while (put < Math.floor(due)) {
        traded.add(trades.putNext());
        put++;
        if (now() >= measuredFrom) {
          measured++;
          measuring = true;
        }
      }
      if (elapsed >= totalMs) {
        clearInterval(timer);
        resolve();
      }
    }, 10);
  });
  await drain(stack);
  stopObserving();
  const collected = await host.collect();
  const observer: number[] = [];
  const all: number[] = [];
  const gotLatest = new Set<number>();
  collected.atMs.forEach((atMs, index) => {
    const symbol = collected.symbol[index] ?? -1;
    const sequence = collected.sequence[index] ?? -1;
    if (traded.has(symbol) && sequence === trades.lastSequence(symbol))
      gotLatest.add((collected.client[index] ?? 0) * SYMBOLS.length + symbol);
    const putAt = trades.putTime(symbol, sequence);
    if (putAt === undefined || putAt < measuredFrom) return;
    all.push(atMs - putAt);
    if (collected.client[index] === 0) observer.push(atMs - putAt);
  });
  const latest = `${gotLatest.size} of ${collected.clients * traded.size}`;
  return { collected, put: measured, observer, all, latest, hops };
}

/** One account, its own connection opened (with `key`) and closed here, at LAG_ALONE's steady rate. */
export async function lagAlone(
  stack: LocalStack,
  host: ClientHost,
  trades: TradeSource,
  key: string,
): Promise<BenchResult[]> {
  await host.open(stack.wsUrl, [key], SYMBOLS);
  const { collected, put, observer, latest, hops } = await measureLag(stack, host, trades, LAG_ALONE);
  await host.close();
  const lag = lagSummary(observer);
  return [
    {
      name: `Lag: trade put -> its quotes message at the client (1 account subscribed to 50 symbols, ${LAG_ALONE.tradesPerSecond} trades/s over them, ${LAG_ALONE.seconds} s after ${LAG_WARM_UP_SECONDS} s of warm-up)`,
      figures: {
        'p50 ms': lag.p50,
        'p99 ms': lag.p99,
        'max ms': lag.max,
        'trades put': put,
        // Fewer than the trades: a batch carrying two trades of a symbol writes (and pushes) only the later.
        quotes: observer.length,
        'symbols whose last trade arrived': latest,
        ...integrityFigures(collected),
      },
    },
    hopsResult(`quotes, 1 account, ${LAG_ALONE.tradesPerSecond} trades/s`, hops, [
      ['trade -> message at the client (the gateway, the socket)', observer],
    ]),
  ];
}

/**
 * The SUBSCRIBERS connections already open on the host, at LAG_SHARED's share of `saturationQuotesPerSecond`
 * (the saturation's quotes/s), at least 0.2 trades/s.
 */
export async function lagShared(
  stack: LocalStack,
  host: ClientHost,
  trades: TradeSource,
  saturationQuotesPerSecond: number,
): Promise<BenchResult[]> {
  const tradesPerSecond = Math.max(
    0.2,
    Number((saturationQuotesPerSecond * LAG_SHARED.shareOfSaturation).toFixed(1)),
  );
  const run = { tradesPerSecond, seconds: LAG_SHARED.seconds };
  const { collected, put, observer, all, latest, hops } = await measureLag(stack, host, trades, run);
  const atObserver = lagSummary(observer);
  const atAll = lagSummary(all);
  const shared: BenchResult = {
    name: `Lag: trade put -> its quotes message (${SUBSCRIBERS} accounts, each subscribed to the same 50 symbols, ${tradesPerSecond} trades/s over them = ${LAG_SHARED.shareOfSaturation * 100}% of the saturation rate, ${LAG_SHARED.seconds} s after ${LAG_WARM_UP_SECONDS} s of warm-up)`,
    figures: {
      'p50 ms (every message)': atAll.p50,
      'p99 ms (every message)': atAll.p99,
      'max ms (every message)': atAll.max,
      'p50 ms (one client)': atObserver.p50,
      'p99 ms (one client)': atObserver.p99,
      'trades put': put,
      'quotes (one client)': observer.length,
      'messages (all clients)': all.length,
      '(client, symbol) pairs whose last trade arrived': latest,
      ...integrityFigures(collected),
    },
  };
  return [
    shared,
    hopsResult(`quotes, ${SUBSCRIBERS} accounts, ${tradesPerSecond} trades/s`, hops, [
      ['trade -> message at the client (the gateway, the socket)', all],
    ]),
  ];
}
