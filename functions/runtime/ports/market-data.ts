import { DynamoBarStore } from '#adapters/dynamo/bar-store';
import { DynamoInstrumentCatalog } from '#adapters/dynamo/instrument-catalog';
import { DynamoLedgerStore } from '#adapters/dynamo/ledger-store';
import { DynamoPriceStore } from '#adapters/dynamo/price-store';
import { DynamoTradeLog } from '#adapters/dynamo/trade-log';
import type { CommittedWrites } from '#use-cases/ingest-trades';
import { documentClient } from '../dynamo.ts';
import { tableName } from '../environment.ts';
import { memo } from '../memo.ts';
import { cachedUniverse } from '../universe.ts';

/**
 * The production market-data ports (functions/domain/market-data/ports.ts), each made on first use and kept
 * for the Lambda instance. Handlers take providers like these as arguments, so tests pass fakes instead;
 * each handler imports only the port modules it uses, so its bundle holds only those adapters and clients.
 */
export const instrumentCatalog = memo(
  () => new DynamoInstrumentCatalog(documentClient(), tableName('instruments')),
);

export const priceStore = memo(() => new DynamoPriceStore(documentClient(), tableName('prices')));

export const barStore = memo(() => new DynamoBarStore(documentClient(), tableName('bars')));

/** The session trade log: what an amendment rebuilds a minute from (docs/storage.md#the-session-trade-log). */
export const tradeLog = memo(() => new DynamoTradeLog(documentClient(), tableName('tradeLog')));

/** The ledgers carry the ingest path's pending writes (functions/use-cases/ingest-trades.ts). */
export const ledgerStore = memo(
  () => new DynamoLedgerStore<CommittedWrites>(documentClient(), tableName('ledgers')),
);

/** The universe, re-read every five minutes. */
export const universe = cachedUniverse(instrumentCatalog, 5 * 60_000);
