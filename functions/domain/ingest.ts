import pLimit from 'p-limit';
import type { BarStore, LedgerStore, Series } from '#ports/market-data';
import type { PriceStore } from '#ports/price-store';
import { type Bar, foldTrades, type Trade } from './aggregation.ts';
import type { SymbolPrice } from './prices.ts';

export interface IngestPorts {
  readonly ledgers: LedgerStore;
  readonly bars: BarStore;
  readonly prices: PriceStore;
}

export interface IngestOutcome {
  readonly applied: number;
  readonly duplicates: number;
  readonly outsideSession: number;
  readonly invalid: number;
  /** Symbols whose ledger another writer changed meanwhile: their trades must be delivered again. */
  readonly failedSymbols: readonly string[];
}

/** Ledger writes in flight at once. */
const LEDGER_WRITE_CONCURRENCY = 16;

function groupBySymbol(trades: readonly Trade[]): Map<string, Trade[]> {
  const groups = new Map<string, Trade[]>();
  for (const trade of trades) {
    const group = groups.get(trade.symbol);
    if (group) group.push(trade);
    else groups.set(trade.symbol, [trade]);
  }
  return groups;
}

/**
 * Folds one batch of trades (any symbols, each symbol's in stream order) into the stored state, with one
 * write per changed item: completed bars and latest prices first (absolute values, so a retry rewrites the
 * same values), then each symbol's ledger, guarded by its version. A redelivered batch finds the ledger's
 * watermark past its trades and changes nothing: volume is never counted twice (ARCHITECTURE A4).
 */
export async function ingestTrades(trades: readonly Trade[], ports: IngestPorts): Promise<IngestOutcome> {
  const groups = groupBySymbol(trades);
  const stored = await ports.ledgers.getMany([...groups.keys()]);

  const completed: (Series & { bar: Bar })[] = [];
  const prices: SymbolPrice[] = [];
  const changed: { symbol: string; fold: ReturnType<typeof foldTrades>; version: number | undefined }[] = [];
  let duplicates = 0;
  let outsideSession = 0;
  let invalid = 0;
  let applied = 0;
  for (const [symbol, symbolTrades] of groups) {
    const previous = stored.get(symbol);
    const fold = foldTrades(previous?.ledger, symbol, symbolTrades);
    duplicates += fold.duplicates;
    outsideSession += fold.outsideSession;
    invalid += fold.invalid;
    applied += fold.applied;
    if (fold.applied === 0) continue;
    for (const { interval, bar } of fold.completed) completed.push({ symbol, interval, bar });
    if (fold.ledger.price) prices.push({ symbol, ...fold.ledger.price });
    changed.push({ symbol, fold, version: previous?.version });
  }

  await Promise.all([ports.bars.putMany(completed), ports.prices.putMany(prices)]);
  const limit = pLimit(LEDGER_WRITE_CONCURRENCY);
  const written = await Promise.all(
    changed.map(({ symbol, fold, version }) =>
      limit(async () => ({ symbol, ok: await ports.ledgers.put(fold.ledger, version) })),
    ),
  );
  return {
    applied,
    duplicates,
    outsideSession,
    invalid,
    failedSymbols: written.filter(({ ok }) => !ok).map(({ symbol }) => symbol),
  };
}
