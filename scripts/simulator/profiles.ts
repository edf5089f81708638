/**
 * What the simulator knows about each symbol: its starting price, tick, beta to the market factor,
 * idiosyncratic volatility and how often it trades.
 *
 * - The index products (SPY, QQQ, IWM, DIA and the front-month E-minis ES1!, NQ1!, RTY1!, YM1!) start at
 *   well-known levels that are consistent with each other (ES ~ 10 x SPY, NQ ~ 41 x QQQ, RTY ~ 10 x IWM,
 *   YM ~ 100 x DIA) and follow their index exactly (no idiosyncratic part of their own).
 * - The largest stocks start at well-known levels, with a beta and a volatility of their own.
 * - Every other symbol gets a level log-uniform in [20, 600), a beta and a volatility from a hash of its
 *   symbol: stable across runs and seeds, and different from symbol to symbol.
 */
import { hashString, mix32, unitOf } from './random.ts';

export type IndexId = 'SPX' | 'NDX' | 'RUT' | 'DJI';

export type SymbolKind = 'future' | 'etf' | 'stock';

/** The instrument fields the simulator reads (an `Instrument` has them). */
export interface SimulatedInstrument {
  readonly symbol: string;
  readonly market: string;
  readonly type: string;
}

export interface SymbolProfile {
  readonly symbol: string;
  readonly kind: SymbolKind;
  /** Price increment: 0.01 for stocks and ETFs; ES 0.25, NQ 0.25, RTY 0.1, YM 1. */
  readonly tick: number;
  /** Where the symbol starts when no stored price is given. */
  readonly startPrice: number;
  /** The index an index product tracks (its ETF and its future follow the same path). */
  readonly index: IndexId | undefined;
  /** Sensitivity of log returns to the market factor (index products: taken from the index). */
  readonly beta: number;
  /** Annualized volatility of the idiosyncratic part; 0 for index products. */
  readonly idioVol: number;
  /** Mean time between trades, in milliseconds of session time (the intraday shape moves it around). */
  readonly meanIntervalMs: number;
}

/** The annualized volatility of the market factor (the S&P 500); see market.ts. */
export const MARKET_ANNUAL_VOL = 0.16;

interface IndexProduct {
  readonly index: IndexId;
  readonly kind: 'future' | 'etf';
  readonly level: number;
  readonly tick: number;
  readonly meanIntervalSeconds: number;
}

/** ES / SPY = 10.08, NQ / QQQ = 40.98, RTY / IWM = 10.0, YM / DIA = 100.0. */
const INDEX_PRODUCTS: Readonly<Record<string, IndexProduct>> = {
  SPY: { index: 'SPX', kind: 'etf', level: 590, tick: 0.01, meanIntervalSeconds: 1.0 },
  QQQ: { index: 'NDX', kind: 'etf', level: 510, tick: 0.01, meanIntervalSeconds: 1.2 },
  IWM: { index: 'RUT', kind: 'etf', level: 225, tick: 0.01, meanIntervalSeconds: 1.6 },
  DIA: { index: 'DJI', kind: 'etf', level: 440, tick: 0.01, meanIntervalSeconds: 2.0 },
  'ES1!': { index: 'SPX', kind: 'future', level: 5950, tick: 0.25, meanIntervalSeconds: 1.0 },
  'NQ1!': { index: 'NDX', kind: 'future', level: 20900, tick: 0.25, meanIntervalSeconds: 1.2 },
  'RTY1!': { index: 'RUT', kind: 'future', level: 2250, tick: 0.1, meanIntervalSeconds: 1.8 },
  'YM1!': { index: 'DJI', kind: 'future', level: 44000, tick: 1, meanIntervalSeconds: 1.6 },
};

/** The index betas to the market factor (SPX is the market factor); see market.ts for their own parts. */
export const INDEX_BETA: Readonly<Record<IndexId, number>> = { SPX: 1, NDX: 1.15, RUT: 1.1, DJI: 0.92 };

interface KnownStock {
  readonly level: number;
  /** Beta to the market factor. */
  readonly beta: number;
  /** Total annualized volatility. */
  readonly vol: number;
}

/** Levels of late 2024 / early 2025, rounded; betas and volatilities of the same years, roughly. */
const KNOWN_STOCKS: Readonly<Record<string, KnownStock>> = {
  AAPL: { level: 230, beta: 1.1, vol: 0.25 },
  MSFT: { level: 420, beta: 1.05, vol: 0.24 },
  NVDA: { level: 140, beta: 1.7, vol: 0.5 },
  AMZN: { level: 200, beta: 1.2, vol: 0.32 },
  GOOGL: { level: 170, beta: 1.1, vol: 0.3 },
  GOOG: { level: 172, beta: 1.1, vol: 0.3 },
  META: { level: 570, beta: 1.3, vol: 0.38 },
  TSLA: { level: 340, beta: 1.9, vol: 0.58 },
  'BRK.B': { level: 470, beta: 0.8, vol: 0.18 },
  JPM: { level: 240, beta: 1.0, vol: 0.24 },
  AVGO: { level: 230, beta: 1.4, vol: 0.45 },
  LLY: { level: 780, beta: 0.7, vol: 0.32 },
  V: { level: 310, beta: 0.95, vol: 0.2 },
  MA: { level: 520, beta: 1.0, vol: 0.22 },
  UNH: { level: 540, beta: 0.7, vol: 0.3 },
  XOM: { level: 118, beta: 0.8, vol: 0.26 },
  COST: { level: 920, beta: 0.8, vol: 0.22 },
  HD: { level: 410, beta: 1.0, vol: 0.25 },
  PG: { level: 170, beta: 0.5, vol: 0.17 },
  JNJ: { level: 150, beta: 0.55, vol: 0.18 },
  WMT: { level: 90, beta: 0.6, vol: 0.2 },
  NFLX: { level: 880, beta: 1.3, vol: 0.4 },
  BAC: { level: 46, beta: 1.2, vol: 0.28 },
  KO: { level: 63, beta: 0.55, vol: 0.16 },
  CRM: { level: 330, beta: 1.2, vol: 0.35 },
  ORCL: { level: 180, beta: 1.1, vol: 0.35 },
  AMD: { level: 125, beta: 1.7, vol: 0.5 },
  CVX: { level: 155, beta: 0.85, vol: 0.25 },
  MRK: { level: 100, beta: 0.5, vol: 0.22 },
  PEP: { level: 155, beta: 0.55, vol: 0.18 },
  ADBE: { level: 500, beta: 1.2, vol: 0.35 },
  CSCO: { level: 59, beta: 0.9, vol: 0.22 },
  INTC: { level: 22, beta: 1.2, vol: 0.5 },
  DIS: { level: 113, beta: 1.1, vol: 0.3 },
  MCD: { level: 295, beta: 0.6, vol: 0.18 },
  IBM: { level: 225, beta: 0.8, vol: 0.25 },
};

const MS_PER_SECOND = 1_000;

/** Known stocks trade every 3 s on average; the rest every 3.5-8 s (from the symbol's hash). */
const KNOWN_STOCK_INTERVAL_SECONDS = 3;
const STOCK_INTERVAL_SECONDS = { min: 3.5, max: 8 } as const;
/** Hash-derived stocks: level log-uniform in [20, 600), beta uniform in [0.6, 1.5), vol log-uniform in [0.22, 0.5). */
const STOCK_LEVEL = { min: 20, max: 600 } as const;
const STOCK_BETA = { min: 0.6, max: 1.5 } as const;
const STOCK_VOL = { min: 0.22, max: 0.5 } as const;
/** The idiosyncratic part never falls below this (annualized), however high the beta. */
const MIN_IDIO_VOL = 0.08;
/** Other ETFs (none in the shipped universe): a diversified fund. */
const OTHER_ETF = { beta: 1, vol: 0.18, intervalSeconds: 2 } as const;
/** Other futures (none in the shipped universe): a commodity-like contract, loosely tied to the market. */
const OTHER_FUTURE = { beta: 0.4, vol: 0.3, intervalSeconds: 1.5 } as const;

export function kindOf(instrument: SimulatedInstrument): SymbolKind {
  if (instrument.market === 'futures' || instrument.type === 'FUT') return 'future';
  return instrument.type === 'ETF' ? 'etf' : 'stock';
}

/** Uniform numbers in [0, 1) for a symbol, one per purpose (`salt`), independent of the seed. */
function symbolUnit(symbol: string, salt: number): number {
  return unitOf(mix32(hashString(symbol) ^ Math.imul(salt, 0x9e37_79b9)));
}

function logUniform(unit: number, min: number, max: number): number {
  return min * (max / min) ** unit;
}

function idioVolOf(totalVol: number, beta: number): number {
  const marketPart = beta * MARKET_ANNUAL_VOL;
  return Math.sqrt(Math.max(totalVol * totalVol - marketPart * marketPart, MIN_IDIO_VOL * MIN_IDIO_VOL));
}

/** A symbol's level when nothing is known about it: log-uniform in [20, 600), to the cent. */
export function hashedLevel(symbol: string): number {
  return Math.round(logUniform(symbolUnit(symbol, 1), STOCK_LEVEL.min, STOCK_LEVEL.max) * 100) / 100;
}

/** The profile of a symbol (deterministic: depends only on the instrument). */
export function profileOf(instrument: SimulatedInstrument): SymbolProfile {
  const { symbol } = instrument;
  const product = INDEX_PRODUCTS[symbol];
  if (product !== undefined) {
    return {
      symbol,
      kind: product.kind,
      tick: product.tick,
      startPrice: product.level,
      index: product.index,
      beta: INDEX_BETA[product.index],
      idioVol: 0,
      meanIntervalMs: product.meanIntervalSeconds * MS_PER_SECOND,
    };
  }
  const kind = kindOf(instrument);
  const known = KNOWN_STOCKS[symbol];
  if (kind === 'stock' && known !== undefined) {
    return {
      symbol,
      kind,
      tick: 0.01,
      startPrice: known.level,
      index: undefined,
      beta: known.beta,
      idioVol: idioVolOf(known.vol, known.beta),
      meanIntervalMs: KNOWN_STOCK_INTERVAL_SECONDS * MS_PER_SECOND,
    };
  }
  const generic =
    kind === 'future'
      ? { beta: OTHER_FUTURE.beta, vol: OTHER_FUTURE.vol, intervalSeconds: OTHER_FUTURE.intervalSeconds }
      : kind === 'etf'
        ? { beta: OTHER_ETF.beta, vol: OTHER_ETF.vol, intervalSeconds: OTHER_ETF.intervalSeconds }
        : {
            beta: STOCK_BETA.min + (STOCK_BETA.max - STOCK_BETA.min) * symbolUnit(symbol, 2),
            vol: logUniform(symbolUnit(symbol, 3), STOCK_VOL.min, STOCK_VOL.max),
            intervalSeconds:
              STOCK_INTERVAL_SECONDS.min +
              (STOCK_INTERVAL_SECONDS.max - STOCK_INTERVAL_SECONDS.min) * symbolUnit(symbol, 4),
          };
  return {
    symbol,
    kind,
    tick: 0.01,
    startPrice: hashedLevel(symbol),
    index: undefined,
    beta: generic.beta,
    idioVol: idioVolOf(generic.vol, generic.beta),
    meanIntervalMs: generic.intervalSeconds * MS_PER_SECOND,
  };
}

/** The default starting price of a symbol (what `profileOf` gives). */
export function defaultStartPrice(instrument: SimulatedInstrument): number {
  return profileOf(instrument).startPrice;
}
