/**
 * Corrections and cancels of trades already printed (Alpaca's `c` and `x` messages;
 * docs/data-sources.md#corrections-and-cancels). An amendment whose original trade the connector still holds
 * (not yet put on the trades stream) is applied there: a cancel removes the trade, a correction replaces it
 * in place (same position, so the symbol's order holds) with the corrected trade, or removes it when the
 * corrected conditions make it count for nothing. Otherwise the original is already on the stream: the
 * amendment is forwarded, put on the stream after it in the symbol's order, and the ingest path rewrites
 * every bar and price the original touched (docs/candles.md#amendments).
 */
import type { StreamItem, Trade, TradeAmendment } from '../market-data/bars.ts';
import { isAmendment } from '../market-data/bars.ts';

export type Amendment =
  | {
      readonly kind: 'cancel';
      readonly symbol: string;
      readonly tradeId: string;
      /** The original trade's time as the provider's message gives it (Unix ms). */
      readonly timestamp: number;
    }
  | {
      readonly kind: 'correction';
      readonly symbol: string;
      readonly tradeId: string;
      readonly timestamp: number;
      /** Undefined when the corrected conditions exclude the trade from volume. */
      readonly corrected: Trade | undefined;
    };

export type AmendmentOutcome = 'applied' | 'forwarded';

/** The amendment as the trades stream carries it (a correction that excludes the trade is a cancel). */
export function streamAmendment(amendment: Amendment): TradeAmendment {
  const { symbol, tradeId: amends, timestamp } = amendment;
  if (amendment.kind === 'cancel' || amendment.corrected === undefined) return { symbol, amends, timestamp };
  const { price, size, tradeId, volumeOnly } = amendment.corrected;
  return {
    symbol,
    amends,
    timestamp,
    corrected: volumeOnly === true ? { price, size, tradeId, volumeOnly } : { price, size, tradeId },
  };
}

/**
 * Applies an amendment to the items not yet put (modified in place): `applied` when its original was there;
 * otherwise `forwarded`, the amendment appended to be put after it.
 */
export function amendPending(pending: StreamItem[], amendment: Amendment): AmendmentOutcome {
  const index = pending.findIndex(
    (item) => !isAmendment(item) && item.symbol === amendment.symbol && item.tradeId === amendment.tradeId,
  );
  if (index === -1) {
    pending.push(streamAmendment(amendment));
    return 'forwarded';
  }
  if (amendment.kind === 'correction' && amendment.corrected !== undefined) {
    // A correction keeps the original's time (and so its place in the symbol's order).
    pending.splice(index, 1, { ...amendment.corrected, timestamp: (pending[index] as Trade).timestamp });
  } else {
    pending.splice(index, 1);
  }
  return 'applied';
}
