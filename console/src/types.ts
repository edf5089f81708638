/**
 * The shapes the console reads: the client library's types (clients/typescript/src/contracts.ts), which are
 * generated from the schemas the service answers with, so the console, partners' code and the API cannot
 * drift.
 */
export type {
  Bar,
  Candles,
  InForceAlert,
  Instrument,
  MarketStatus,
  PriceItem,
  SetupRow,
  SimultaneousBreak,
  StateSnapshot,
} from '../../clients/typescript/src/index.ts';
