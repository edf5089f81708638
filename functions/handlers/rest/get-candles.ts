import { candlesQuerySchema, getCandles } from '#domain/candles';
import type { Clock } from '#domain/clock';
import type { InstrumentCatalog } from '#ports/instrument-catalog';
import type { BarStore, LedgerStore } from '#ports/market-data';
import { barStore, clock, instrumentCatalog, ledgerStore } from '#runtime/ports';
import { pathSymbol, restHandler } from '#runtime/rest-handler';

/** GET /candles/{symbol} (spec 4.5). */
export const createHandler = (deps: {
  instruments: () => InstrumentCatalog;
  bars: () => BarStore;
  ledgers: () => LedgerStore;
  clock: () => Clock;
}) =>
  restHandler(candlesQuerySchema, (request) =>
    getCandles(pathSymbol(request), request.query, {
      instruments: deps.instruments(),
      bars: deps.bars(),
      ledgers: deps.ledgers(),
      now: deps.clock(),
    }),
  );

export const handler = createHandler({
  instruments: instrumentCatalog,
  bars: barStore,
  ledgers: ledgerStore,
  clock,
});
