/**
 * The simulator's price dynamics.
 *
 * Market factors. Four log-level paths, sampled once a minute of session time and linearly interpolated in
 * between: the market factor (the S&P 500) and the own parts of the Nasdaq-100, the Russell 2000 and the
 * Dow. An index's log level is `beta x market + own part`; its ETF and its future both follow it, so SPY and
 * ES1! move together exactly (up to their ticks), and the four indexes correlate at about 0.9.
 * - Daily variance follows GARCH(1,1) on the market factor's daily shocks (persistence 0.98): calm and
 *   volatile stretches alternate. The indexes' own parts scale with the same variance.
 * - A daily drift follows an AR(1) around a small positive mean: trending stretches alternate with ranging
 *   ones (daily, weekly and monthly bars of every Strat type).
 * - 15% of a day's variance comes as a gap at the open (the overnight move); the rest is spread over the
 *   session in a U shape (busier after the open and before the close). A session that closes early gets a
 *   share of the intraday variance in proportion to its length.
 *
 * Symbols. A symbol's log price is `log(start) + beta x (market - market at start) + index own part (index
 * products) + idiosyncratic part (stocks)`. The idiosyncratic part is a random walk drawn at the symbol's
 * own trade times, with a GARCH(1,1) daily variance of its own and its own opening gaps.
 *
 * Nothing here reads a clock: sessions come from the calendar, instants are passed in.
 */
import { nextSession, type Session, sessionAt, sessionOn } from '#domain/calendar/sessions';
import { isoDateOf, MS_PER_DAY } from '#domain/calendar/time-zone';
import { type IndexId, MARKET_ANNUAL_VOL, type SymbolProfile } from './profiles.ts';
import type { Random } from './random.ts';

const TRADING_DAYS_PER_YEAR = 252;
/** Local, not imported: module bindings can cost a getter call per use in transpiled test runs. */
const MINUTE_MS = 60_000;
/** A full regular session, 09:30-16:00. */
export const FULL_SESSION_MS = 390 * MINUTE_MS;

/** The market model's parameters (daily units unless named otherwise). */
export const MARKET_PARAMS = Object.freeze({
  /** Long-run annualized volatility of the market factor. */
  annualVol: MARKET_ANNUAL_VOL,
  /** GARCH(1,1): h' = omega + alpha * shock^2 + beta * h, omega = (1 - alpha - beta) * long-run variance. */
  garchAlpha: 0.08,
  garchBeta: 0.9,
  /** Bounds on the daily variance, as multiples of the long-run variance. */
  varianceFloor: 0.25,
  varianceCeiling: 9,
  /** Mean annual drift of the market factor (log). */
  annualDrift: 0.07,
  /** AR(1) persistence of the daily drift, and its stationary standard deviation as a share of daily vol. */
  trendPersistence: 0.85,
  trendShare: 0.2,
  /** Share of a day's variance in the opening gap. */
  gapShare: 0.15,
  /** The stocks' idiosyncratic GARCH(1,1). */
  idioGarchAlpha: 0.05,
  idioGarchBeta: 0.93,
});

const LONG_RUN_DAILY_VARIANCE = (MARKET_PARAMS.annualVol * MARKET_PARAMS.annualVol) / TRADING_DAYS_PER_YEAR;
const DAILY_DRIFT = MARKET_PARAMS.annualDrift / TRADING_DAYS_PER_YEAR;
const TREND_SD = MARKET_PARAMS.trendShare * Math.sqrt(LONG_RUN_DAILY_VARIANCE);
const TREND_INNOVATION_SD = TREND_SD * Math.sqrt(1 - MARKET_PARAMS.trendPersistence ** 2);
const GAP_SHARE = MARKET_PARAMS.gapShare;
const INTRADAY_SHARE = 1 - GAP_SHARE;

/**
 * The market factors. An index's own part has a daily standard deviation of `ownRatio` x the market
 * factor's, so its correlation with the market is beta / sqrt(beta^2 + ownRatio^2): NDX 0.95, RUT 0.93,
 * DJI 0.96; between indexes 0.88-0.91.
 */
export const INDEX_FACTORS: Readonly<
  Record<IndexId, { readonly factor: number; readonly ownRatio: number }>
> = {
  SPX: { factor: 0, ownRatio: 0 },
  NDX: { factor: 1, ownRatio: 0.378 },
  RUT: { factor: 2, ownRatio: 0.435 },
  DJI: { factor: 3, ownRatio: 0.268 },
};
const FACTOR_COUNT = 4;
const OWN_RATIOS = [0, INDEX_FACTORS.NDX.ownRatio, INDEX_FACTORS.RUT.ownRatio, INDEX_FACTORS.DJI.ownRatio];

// ---------------------------------------------------------------------------------------------------------
// Intraday shapes: density a + b e^(-u/c) + d e^(-(1-u)/c) over the session's fraction u in [0, 1].
// ---------------------------------------------------------------------------------------------------------

interface UShape {
  readonly flat: number;
  readonly open: number;
  readonly close: number;
  readonly width: number;
}

function uShapeIntegral(shape: UShape, u: number): number {
  const { flat, open, close, width } = shape;
  return (
    flat * u +
    open * width * (1 - Math.exp(-u / width)) +
    close * width * (Math.exp(-(1 - u) / width) - Math.exp(-1 / width))
  );
}

function uShapeDensity(shape: UShape, u: number): number {
  return (
    shape.flat + shape.open * Math.exp(-u / shape.width) + shape.close * Math.exp(-(1 - u) / shape.width)
  );
}

/** Intraday variance: about 2.3x the midday rate just after the open, 1.7x just before the close. */
const VARIANCE_SHAPE: UShape = { flat: 1, open: 1.5, close: 0.8, width: 0.06 };
const VARIANCE_TOTAL = uShapeIntegral(VARIANCE_SHAPE, 1);

/** Trade arrivals: about 2.6x the average rate at the open, 2.1x at the close, 0.85x at midday. */
const ACTIVITY_SHAPE: UShape = { flat: 1, open: 2, close: 1.5, width: 0.05 };
const ACTIVITY_TOTAL = uShapeIntegral(ACTIVITY_SHAPE, 1);
/** The activity density's maximum (at the open), relative to its mean. */
export const ACTIVITY_PEAK = uShapeDensity(ACTIVITY_SHAPE, 0) / ACTIVITY_TOTAL;

/** Trade intensity at session fraction u, relative to the session's mean (mean 1). */
export function activityAt(u: number): number {
  return uShapeDensity(ACTIVITY_SHAPE, u) / ACTIVITY_TOTAL;
}

/** Share of a session's trades expected before session fraction u (0 at the open, 1 at the close). */
export function activityShareAt(u: number): number {
  return uShapeIntegral(ACTIVITY_SHAPE, u) / ACTIVITY_TOTAL;
}

/** Share of a session's intraday variance before fraction u, at each minute node; one table per length. */
const varianceShareTables = new Map<number, Float64Array>();

function varianceShareTable(lengthMs: number, minutes: number): Float64Array {
  let table = varianceShareTables.get(lengthMs);
  if (table === undefined) {
    table = new Float64Array(minutes + 1);
    for (let k = 0; k <= minutes; k++) {
      const u = Math.min(k * MINUTE_MS, lengthMs) / lengthMs;
      table[k] = uShapeIntegral(VARIANCE_SHAPE, u) / VARIANCE_TOTAL;
    }
    table[minutes] = 1;
    varianceShareTables.set(lengthMs, table);
  }
  return table;
}

// ---------------------------------------------------------------------------------------------------------
// Sessions.
// ---------------------------------------------------------------------------------------------------------

/** The session containing `ms`, or else the first one after it; undefined past the calendar's range. */
export function sessionAtOrAfter(ms: number): Session | undefined {
  const current = sessionAt(new Date(ms));
  if (current !== undefined) return current;
  // Every session lies inside one UTC day (calendar.ts): the UTC date's session, if still ahead, is next.
  const date = isoDateOf(Math.floor(ms / MS_PER_DAY));
  const sameDay = sessionOn(date);
  if (sameDay !== undefined && ms < sameDay.open.getTime()) return sameDay;
  return nextSession(date);
}

/** One session of the market factors: their values at each minute node, and how to read them in between. */
export class SessionPath {
  readonly date: string;
  readonly openMs: number;
  readonly closeMs: number;
  /** Session length over a full session's (1 for a full day, 210/390 for a 13:00 close). */
  readonly lengthFactor: number;
  readonly minutes: number;
  /** Each factor's value at the previous close, before the opening gap. */
  readonly before: Float64Array;
  /** Factor f at minute node k (k = 0 at the open, after the gap; k = minutes at the close). */
  readonly values: Float64Array;
  private readonly varianceShares: Float64Array;
  private readonly lastNodeMs: number;
  private following: SessionPath | null | undefined;

  constructor(
    session: Session,
    before: Float64Array,
    private readonly market: { generateAfter(path: SessionPath): SessionPath | undefined },
  ) {
    this.date = session.date;
    this.openMs = session.open.getTime();
    this.closeMs = session.close.getTime();
    const lengthMs = this.closeMs - this.openMs;
    this.lengthFactor = lengthMs / FULL_SESSION_MS;
    this.minutes = Math.ceil(lengthMs / MINUTE_MS);
    this.before = before;
    this.values = new Float64Array(FACTOR_COUNT * (this.minutes + 1));
    this.varianceShares = varianceShareTable(lengthMs, this.minutes);
    this.lastNodeMs = this.openMs + (this.minutes - 1) * MINUTE_MS;
  }

  /** The next session (generated on first use); undefined past the calendar's range. */
  next(): SessionPath | undefined {
    if (this.following === undefined) this.following = this.market.generateAfter(this) ?? null;
    return this.following ?? undefined;
  }

  /** Position of an instant in minute nodes: 0 at the open, `minutes` at the close (clamped). */
  position(t: number): number {
    if (t <= this.openMs) return 0;
    if (t >= this.closeMs) return this.minutes;
    if (t < this.lastNodeMs) return (t - this.openMs) / MINUTE_MS;
    return this.minutes - 1 + (t - this.lastNodeMs) / (this.closeMs - this.lastNodeMs);
  }

  /** Factor f at a position (linear between minute nodes). */
  factorAt(factor: number, position: number): number {
    const base = factor * (this.minutes + 1);
    const k = Math.min(Math.floor(position), this.minutes - 1);
    const fraction = position - k;
    const from = this.values[base + k] ?? 0;
    const to = this.values[base + k + 1] ?? 0;
    return from + (to - from) * fraction;
  }

  /** Factor f's last value (at the close). */
  closeOf(factor: number): number {
    return this.values[factor * (this.minutes + 1) + this.minutes] ?? 0;
  }

  /** Share of the session's intraday variance before a position. */
  varianceShareAt(position: number): number {
    const k = Math.min(Math.floor(position), this.minutes - 1);
    const from = this.varianceShares[k] ?? 0;
    const to = this.varianceShares[k + 1] ?? 1;
    return from + (to - from) * (position - k);
  }

  /** Session fraction (0 at the open, 1 at the close) of an instant. */
  fractionAt(t: number): number {
    return (t - this.openMs) / (this.closeMs - this.openMs);
  }
}

/**
 * The market factors from `startMs` on: the first session (the one containing `startMs`, or the next one;
 * undefined past the calendar's range), whose `next()` leads to the following ones.
 *
 * Sessions are generated one after the other from the market's own random stream, so the path depends only
 * on the stream's seed and the first session, never on who asks for it or when. They are linked forward
 * only, and nothing else holds them: once no symbol points at an old session, it is garbage collected.
 */
export function startMarket(random: Random, startMs: number): SessionPath | undefined {
  return new MarketPath(random).start(startMs);
}

class MarketPath {
  private tail: SessionPath | undefined;
  private variance = LONG_RUN_DAILY_VARIANCE;
  private trend: number;

  constructor(private readonly random: Random) {
    this.trend = DAILY_DRIFT + TREND_SD * random.normal();
  }

  start(startMs: number): SessionPath | undefined {
    const session = sessionAtOrAfter(startMs);
    return session === undefined ? undefined : this.generate(session, new Float64Array(FACTOR_COUNT));
  }

  /** The session after `path`; only the latest generated session may ask (SessionPath.next caches it). */
  generateAfter(path: SessionPath): SessionPath | undefined {
    if (path !== this.tail) throw new Error('MarketPath: sessions are generated in order');
    const session = nextSession(path.date);
    if (session === undefined) return undefined;
    const before = new Float64Array(FACTOR_COUNT);
    for (let f = 0; f < FACTOR_COUNT; f++) before[f] = path.closeOf(f);
    return this.generate(session, before);
  }

  private generate(session: Session, before: Float64Array): SessionPath {
    const path = new SessionPath(session, before, this);
    const { random } = this;
    const { minutes, values, lengthFactor } = path;
    const stride = minutes + 1;
    const variance = this.variance;
    const trend = this.trend;
    const gapSd = Math.sqrt(GAP_SHARE * variance);
    for (let f = 0; f < FACTOR_COUNT; f++) {
      values[f * stride] = (before[f] ?? 0) + (f === 0 ? 1 : (OWN_RATIOS[f] ?? 0)) * gapSd * random.normal();
    }
    const intradayVariance = INTRADAY_SHARE * variance * lengthFactor;
    const lengthMs = path.closeMs - path.openMs;
    let previousShare = 0;
    for (let k = 1; k <= minutes; k++) {
      const share = path.varianceShareAt(k);
      const sd = Math.sqrt(intradayVariance * (share - previousShare));
      const segmentMs = Math.min(MINUTE_MS, lengthMs - (k - 1) * MINUTE_MS);
      previousShare = share;
      values[k] = (values[k - 1] ?? 0) + (trend * segmentMs) / FULL_SESSION_MS + sd * random.normal();
      for (let f = 1; f < FACTOR_COUNT; f++) {
        const at = f * stride + k;
        values[at] = (values[at - 1] ?? 0) + (OWN_RATIOS[f] ?? 0) * sd * random.normal();
      }
    }
    // The day's shock (close to close, drift removed) feeds the variance; the drift moves on.
    const shock = path.closeOf(0) - (before[0] ?? 0) - trend * lengthFactor;
    this.variance = garch(
      variance,
      shock,
      LONG_RUN_DAILY_VARIANCE,
      MARKET_PARAMS.garchAlpha,
      MARKET_PARAMS.garchBeta,
    );
    this.trend =
      DAILY_DRIFT +
      MARKET_PARAMS.trendPersistence * (trend - DAILY_DRIFT) +
      TREND_INNOVATION_SD * random.normal();
    this.tail = path;
    return path;
  }
}

function garch(variance: number, shock: number, longRun: number, alpha: number, beta: number): number {
  const next = (1 - alpha - beta) * longRun + alpha * shock * shock + beta * variance;
  return Math.min(
    Math.max(next, MARKET_PARAMS.varianceFloor * longRun),
    MARKET_PARAMS.varianceCeiling * longRun,
  );
}

/**
 * One symbol's log price along the market path. Ask in time order (`logPriceAt` never goes back): the
 * idiosyncratic part is drawn from the symbol's own stream as time moves on.
 */
export class SymbolPath {
  private readonly logBase: number;
  private readonly beta: number;
  /** The index's own factor, or -1 (the market factor only). */
  private readonly ownFactor: number;
  private readonly idioLongRun: number;
  private session: SessionPath;
  private idio = 0;
  private idioVariance: number;
  private idioAtClose = 0;
  /** Where the idiosyncratic part was last drawn, as a share of the session's intraday variance. */
  private share = 0;

  /**
   * `startPrice` is the price at `startMs`; `first` is the market's first session (the one containing
   * `startMs` or the next). A start before the open means the symbol gaps at the open like the market.
   */
  constructor(
    profile: SymbolProfile,
    startPrice: number,
    startMs: number,
    first: SessionPath,
    private readonly random: Random,
  ) {
    const exposure = factorExposure(profile);
    this.beta = exposure.beta;
    this.ownFactor = exposure.ownFactor;
    this.idioLongRun = (profile.idioVol * profile.idioVol) / TRADING_DAYS_PER_YEAR;
    this.idioVariance = this.idioLongRun;
    this.session = first;
    const inside = startMs > first.openMs;
    const position = inside ? first.position(startMs) : 0;
    const market = inside ? first.factorAt(0, position) : (first.before[0] ?? 0);
    const own =
      this.ownFactor < 0
        ? 0
        : inside
          ? first.factorAt(this.ownFactor, position)
          : (first.before[this.ownFactor] ?? 0);
    this.logBase = Math.log(startPrice) - this.beta * market - own;
    if (this.idioLongRun > 0) {
      if (inside) this.share = first.varianceShareAt(position);
      else this.idio = Math.sqrt(GAP_SHARE * this.idioVariance) * random.normal();
    }
  }

  /** The log price at instant t of session `path` (t inside it; path and t never earlier than before). */
  logPriceAt(path: SessionPath, t: number): number {
    const position = path.position(t);
    if (this.idioLongRun > 0) this.moveIdio(path, position);
    const own = this.ownFactor < 0 ? 0 : path.factorAt(this.ownFactor, position);
    return this.logBase + this.beta * path.factorAt(0, position) + own + this.idio;
  }

  private moveIdio(path: SessionPath, position: number): void {
    const { random } = this;
    while (this.session !== path) {
      const current = this.session;
      const rest = (1 - this.share) * INTRADAY_SHARE * this.idioVariance * current.lengthFactor;
      this.idio += Math.sqrt(rest) * random.normal();
      const shock = this.idio - this.idioAtClose;
      this.idioAtClose = this.idio;
      this.idioVariance = garch(
        this.idioVariance,
        shock,
        this.idioLongRun,
        MARKET_PARAMS.idioGarchAlpha,
        MARKET_PARAMS.idioGarchBeta,
      );
      const following = current.next();
      if (following === undefined) throw new Error(`SymbolPath: no session after ${current.date}`);
      this.session = following;
      this.idio += Math.sqrt(GAP_SHARE * this.idioVariance) * random.normal();
      this.share = 0;
    }
    const share = path.varianceShareAt(position);
    const variance = (share - this.share) * INTRADAY_SHARE * this.idioVariance * path.lengthFactor;
    if (variance > 0) {
      this.idio += Math.sqrt(variance) * random.normal();
      this.share = share;
    }
  }
}

/** A profile's beta to the market factor and its index's own factor (-1: none). */
export function factorExposure(profile: SymbolProfile): {
  readonly beta: number;
  readonly ownFactor: number;
} {
  return {
    beta: profile.beta,
    ownFactor:
      profile.index === undefined || profile.index === 'SPX' ? -1 : INDEX_FACTORS[profile.index].factor,
  };
}
