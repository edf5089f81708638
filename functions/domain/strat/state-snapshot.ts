import * as z from 'zod/mini';
import type { LatestPrice } from '#domain/market-data/bars';
import { type Instrument, instrumentSchema } from '#domain/market-data/instruments';
import type { InstrumentCatalog, LedgerStore } from '#domain/market-data/ports';
import { isWellFormedSymbol } from '#domain/market-data/symbols';
import { UnknownSymbolError } from '#domain/requests/errors';
import { setupRowSchema } from './current-setups.ts';
import { deriveSymbolState, type SymbolState } from './setups.ts';
import { TIMEFRAMES, type Timeframe } from './timeframes.ts';

/** The chart timeframe partners are pointed to first (ours to choose: the daily chart). */
export const DEFAULT_CHART_TIMEFRAME: Timeframe = 'D';

/**
 * A state snapshot (docs/partner-guide.md#state-snapshot). `price` is `{}` when no trade is on record;
 * otherwise price, volume and the trade's time.
 */
export const stateSnapshotSchema = z.object({
  symbol: z.string(),
  instrument: instrumentSchema,
  price: z.union([
    z.object({ price: z.number(), volume: z.number(), time: z.iso.datetime() }),
    z.strictObject({}),
  ]),
  tfc: z.partialRecord(z.enum(TIMEFRAMES), z.enum(['green', 'red', 'yellow'])),
  setups: z.array(setupRowSchema),
  default_timeframe: z.enum(TIMEFRAMES),
  chart_timeframes: z.array(z.enum(TIMEFRAMES)),
});

export type StateSnapshot = z.infer<typeof stateSnapshotSchema>;

/**
 * GET /states/{symbol} (docs/partner-guide.md#get-statessymbol). The state is derived from the symbol's
 * ledger at the request's "now", so a period that ended without a trade has already rolled over
 * (docs/strat.md#the-three-candles-and-now).
 */
export async function getStateSnapshot(
  symbol: string,
  ports: {
    readonly instruments: InstrumentCatalog;
    readonly ledgers: LedgerStore;
    readonly nowMs: () => number;
  },
): Promise<StateSnapshot> {
  if (!isWellFormedSymbol(symbol)) throw new UnknownSymbolError(symbol);
  const [instrument, stored] = await Promise.all([ports.instruments.get(symbol), ports.ledgers.get(symbol)]);
  if (!instrument?.active) throw new UnknownSymbolError(symbol);
  const ledger = stored?.ledger;
  const state = ledger
    ? deriveSymbolState(ledger, ports.nowMs(), instrument.sector)
    : { tfc: {}, setups: [] };
  return stateSnapshotOf(instrument, state, ledger?.price);
}

/**
 * A state snapshot (docs/partner-guide.md#state-snapshot) from its parts: the REST answer and the `states`
 * channel's pushes are the same shape.
 */
export function stateSnapshotOf(
  instrument: Instrument,
  state: SymbolState,
  price: LatestPrice | undefined,
): StateSnapshot {
  return {
    symbol: instrument.symbol,
    instrument,
    price: price
      ? { price: price.price, volume: price.volume, time: new Date(price.timestamp).toISOString() }
      : {},
    tfc: state.tfc,
    setups: state.setups,
    default_timeframe: DEFAULT_CHART_TIMEFRAME,
    chart_timeframes: [...TIMEFRAMES],
  };
}
