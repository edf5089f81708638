import { beforeEach } from 'vitest';
import type { Bar, Trade } from '#domain/market-data/bars';
import type { Instrument } from '#domain/market-data/instruments';

/**
 * Test builders of domain values, one of each: tests state what matters to them and take the rest from here.
 * Nothing here keeps state between calls except a sequence a test asked for.
 */

/** Trade ids in the order taken: a zero-padded count after `prefix`, so they also sort as strings in that order. */
export type TradeIds = () => string;

export function tradeIds(options: { readonly prefix?: string; readonly width?: number } = {}): TradeIds {
  const { prefix = '', width = 10 } = options;
  let next = 0;
  return () => `${prefix}${String(next++).padStart(width, '0')}`;
}

/**
 * A sequence that starts again before every test of the file (`beforeEach`): a test's ids never depend on
 * which tests ran before it. Called outside a test (a file's shared scenario), it counts from the start too.
 */
export function perTestTradeIds(options: Parameters<typeof tradeIds>[0] = {}): TradeIds {
  let ids = tradeIds(options);
  beforeEach(() => {
    ids = tradeIds(options);
  });
  return () => ids();
}

export type TradeOptions = {
  /** Default `AAPL`. */
  readonly symbol?: string;
  /** Default 100. */
  readonly size?: number;
  readonly volumeOnly?: boolean;
} & (
  | { readonly tradeId: string; readonly ids?: undefined }
  /** The trade takes the next id of the sequence. */
  | { readonly ids: TradeIds; readonly tradeId?: undefined }
);

/** A trade at `at` (an ISO 8601 instant or Unix ms) for `price`. */
export function trade(at: string | number, price: number, options: TradeOptions): Trade {
  return {
    symbol: options.symbol ?? 'AAPL',
    price,
    size: options.size ?? 100,
    timestamp: typeof at === 'string' ? Date.parse(at) : at,
    tradeId: options.tradeId ?? options.ids(),
    ...(options.volumeOnly === undefined ? {} : { volumeOnly: options.volumeOnly }),
  };
}

/** A listed common stock of `symbol`, with `overrides`. */
export function instrument(symbol: string, overrides: Partial<Instrument> = {}): Instrument {
  return {
    symbol,
    name: `${symbol} Inc.`,
    market: 'stocks',
    exchange: 'NYSE',
    type: 'CS',
    sector: 'Industrials',
    active: true,
    ...overrides,
  };
}

/** A completed bar at `time` (Unix seconds) closing at `close`, a point either side of it. */
export function bar(time: number, close: number): Bar {
  return { time, open: close, high: close + 1, low: close - 1, close, volume: 100 };
}
