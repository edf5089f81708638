import { DynamoBarStore } from '#adapters/dynamo/bar-store';
import { DynamoInstrumentCatalog } from '#adapters/dynamo/instrument-catalog';
import { DynamoLedgerStore } from '#adapters/dynamo/ledger-store';
import { DynamoPriceStore } from '#adapters/dynamo/price-store';
import { DynamoTradeLog } from '#adapters/dynamo/trade-log';
import type { Instrument } from '#domain/market-data/instruments';
import type {
  BarStore,
  InstrumentCatalog,
  LedgerStore,
  PriceStore,
  SessionTradeLog,
} from '#domain/market-data/ports';
import type { CommittedWrites } from '#use-cases/ingest-trades';
import { memo } from '../memo.ts';
import { cachedUniverse } from '../universe.ts';
import { AWS_TABLES } from './aws-tables.ts';
import type { TableContext } from './context.ts';

/** How long the tracked universe is kept before it is read again. */
const UNIVERSE_TTL_MS = 5 * 60_000;

/** The market-data ports (functions/domain/market-data/ports.ts), each a provider. */
export interface MarketDataPorts {
  readonly instrumentCatalog: () => InstrumentCatalog;
  readonly priceStore: () => PriceStore;
  readonly barStore: () => BarStore;
  /** The session trade log: what an amendment rebuilds a minute from (docs/storage.md#the-session-trade-log). */
  readonly tradeLog: () => SessionTradeLog;
  /** The ledgers carry the ingest path's pending writes (functions/use-cases/ingest-trades.ts). */
  readonly ledgerStore: () => LedgerStore<CommittedWrites>;
  /** The tracked universe, re-read every five minutes. */
  readonly universe: () => Promise<Map<string, Instrument>>;
}

/**
 * The market-data ports on `tables`, each made on first use and kept
 * for the Lambda instance (or the local stack). Handlers take providers like these as arguments, so tests pass
 * fakes instead; each handler imports only the port modules it uses, so its bundle holds only those adapters.
 */
export function marketDataPorts({ documents, tableName }: TableContext): MarketDataPorts {
  const instrumentCatalog = memo(() => new DynamoInstrumentCatalog(documents(), tableName('instruments')));
  return {
    instrumentCatalog,
    priceStore: memo(() => new DynamoPriceStore(documents(), tableName('ledgers'))),
    barStore: memo(() => new DynamoBarStore(documents(), tableName('bars'))),
    tradeLog: memo(() => new DynamoTradeLog(documents(), tableName('tradeLog'))),
    ledgerStore: memo(() => new DynamoLedgerStore<CommittedWrites>(documents(), tableName('ledgers'))),
    universe: cachedUniverse(instrumentCatalog, UNIVERSE_TTL_MS),
  };
}

/** The production market-data ports. */
export const awsMarketDataPorts = marketDataPorts(AWS_TABLES);
export const { instrumentCatalog, priceStore, barStore, ledgerStore, universe } = awsMarketDataPorts;
