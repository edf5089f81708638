import { candlesQuerySchema, candlesSchema, getCandles } from '#domain/market-data/candles';
import type { BarStore, InstrumentCatalog, LedgerStore } from '#domain/market-data/ports';
import { nowMs } from '#runtime/clock';
import { barStore, instrumentCatalog, ledgerStore } from '#runtime/ports/market-data';
import { pathSymbol, restHandler } from '#runtime/rest-handler';

/** The route's contract: query and response schemas (the OpenAPI document is built from these). */
export const contract = {
  summary: 'OHLCV candles',
  query: candlesQuerySchema,
  response: candlesSchema,
  errors: ['invalid_parameter', 'unknown_symbol', 'unknown_interval'],
} as const;

/** GET /candles/{symbol} (docs/partner-guide.md#candles). */
export const createHandler = (deps: {
  instruments: () => InstrumentCatalog;
  bars: () => BarStore;
  ledgers: () => LedgerStore;
  nowMs: () => number;
}) =>
  restHandler(contract, (request) =>
    getCandles(pathSymbol(request), request.query, {
      instruments: deps.instruments(),
      bars: deps.bars(),
      ledgers: deps.ledgers(),
      nowMs: deps.nowMs,
    }),
  );

export const handler = createHandler({
  instruments: instrumentCatalog,
  bars: barStore,
  ledgers: ledgerStore,
  nowMs,
});
