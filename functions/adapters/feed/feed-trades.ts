import type { FeedTrade } from '#domain/feed/ports';
import { type ConditionVerdict, countingOf } from '#domain/feed/sale-conditions';

/**
 * A provider's trade as a FeedTrade, or undefined when a field is missing or out of range (the caller
 * counts it as invalid): a price that is not a finite number > 0, a size not a finite number >= 0, a time
 * that is not a positive Unix ms, an empty trade id.
 */
export function feedTradeOf(
  symbol: string | undefined,
  price: unknown,
  size: unknown,
  timestamp: number,
  tradeId: string,
  verdict: ConditionVerdict,
): FeedTrade | undefined {
  if (symbol === undefined || typeof price !== 'number' || typeof size !== 'number') return undefined;
  if (!(price > 0 && Number.isFinite(price)) || !(size >= 0 && Number.isFinite(size))) return undefined;
  if (!(timestamp > 0) || tradeId === '') return undefined;
  const counting = countingOf(verdict.effect);
  const trade = { symbol, price, size, timestamp: Math.floor(timestamp), tradeId };
  return {
    trade: counting === 'volume-only' ? { ...trade, volumeOnly: true } : trade,
    counting,
    unknownConditions: verdict.unknown,
    ...(verdict.auction === undefined ? {} : { auction: verdict.auction }),
  };
}
