/**
 * Corrections and cancels of trades already printed (Alpaca's `c` and `x` messages;
 * docs/data-sources.md#corrections-and-cancels). The rule: an amendment whose original trade the connector
 * still holds (not yet put on the trades stream) is applied there: a cancel removes the trade, a correction
 * replaces it in place (same position, so the symbol's order holds) with the corrected trade, or removes it
 * when the corrected conditions make it count for nothing. Once the original is on the stream it has been
 * folded into bars that may have been served and completed, which are final values: the amendment is then
 * recorded (counted and logged with the trade's id), not applied.
 */
import type { Trade } from '../market-data/bars.ts';

export type Amendment =
  | { readonly kind: 'cancel'; readonly symbol: string; readonly tradeId: string }
  | {
      readonly kind: 'correction';
      readonly symbol: string;
      readonly tradeId: string;
      /** Undefined when the corrected conditions exclude the trade from volume. */
      readonly corrected: Trade | undefined;
    };

export type AmendmentOutcome = 'applied' | 'recorded';

/** Applies an amendment to the trades not yet put (modified in place), or says it is only to be recorded. */
export function amendPending(pending: Trade[], amendment: Amendment): AmendmentOutcome {
  const index = pending.findIndex(
    (trade) => trade.symbol === amendment.symbol && trade.tradeId === amendment.tradeId,
  );
  if (index === -1) return 'recorded';
  if (amendment.kind === 'correction' && amendment.corrected !== undefined) {
    pending.splice(index, 1, amendment.corrected);
  } else {
    pending.splice(index, 1);
  }
  return 'applied';
}
