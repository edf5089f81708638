/**
 * One symbol's part of an ingest batch (functions/use-cases/ingest-trades.ts): its items in stream order,
 * trades folded as they come and each amendment applied between them (docs/candles.md#amendments), all into
 * one ledger commit and the derived writes that follow it.
 *
 * An amendment names its trade by id and by the minute its time falls in. The minute's trades come from the
 * session trade log (plus what this batch applied and has not logged yet); with the amendment applied, the
 * minute's 1m bar is folded again, every bar holding the trade's time is merged again from the session's 1m
 * bars (and 1w .. 1y from their 1d bars), and each lands where it lives: a forming bar in the ledger, a
 * completed one in the bar store (removed when no trade is left in it), and in the Strat's `recent` bars.
 * When the amended trade was the latest price, the price moves to the last counting trade left, searched
 * back minute by minute within the session. An amendment of a trade the log does not hold in that minute, or
 * of another session than the symbol's current one, changes nothing and is counted with its reason; so is
 * one already applied (a redelivery or a duplicate), so applying one twice never changes anything twice.
 */
import type {
  Bar,
  CompletedBar,
  StreamItem,
  Trade,
  TradeAmendment,
  TradeMark,
} from '#domain/market-data/bars';
import { isAmendment } from '#domain/market-data/bars';
import type { Interval } from '#domain/market-data/intervals';
import type { SymbolLedger } from '#domain/market-data/ledger';
import {
  intradayStartMs,
  isInPeriodRange,
  type Period,
  periodAt,
  sessionTimesAt,
} from '#domain/market-data/periods';
import type { BarStore, SessionTradeLog, TradeLogEntry } from '#domain/market-data/ports';
import {
  amendedTrades,
  amendmentFit,
  amendTrade,
  inTimeOrder,
  type LoggedAmendment,
  type LoggedTrade,
  lastPricedTrade,
  minuteBarOf,
  rebuiltBars,
} from '#domain/market-data/trade-amendments';
import type { InForceEvent } from '#domain/strat/in-force';
import { foldTrades } from '#domain/strat/trade-fold';

/** Whether the ledger's last trade falls in `period`: its bar is the one still forming. */
function holdsLastTrade(period: Period, ledger: SymbolLedger): boolean {
  const last = ledger.lastTrade?.timestamp;
  return last !== undefined && last >= period.startMs && last < period.endMs;
}

/** Why an amendment changed nothing (docs/candles.md#amendments). */
export type AmendmentRefusal = 'unknown_trade' | 'other_session' | 'duplicate';

const MINUTE_MS = 60_000;
const MS_PER_SECOND = 1_000;

/** A stream item's mark: a trade's own, an amendment's the trade it amends, set apart by a prefix. */
export function itemMark(item: StreamItem): TradeMark {
  return isAmendment(item)
    ? { timestamp: item.timestamp, tradeId: `amends ${item.amends}` }
    : { timestamp: item.timestamp, tradeId: item.tradeId };
}

const logged = ({ timestamp, tradeId, price, size, volumeOnly }: Trade): LoggedTrade =>
  volumeOnly === true ? { timestamp, tradeId, price, size, volumeOnly } : { timestamp, tradeId, price, size };

const barKey = (interval: Interval, time: number) => `${interval}@${time}`;

/** What one symbol's items made: the fold's counts and everything its commit carries. */
export class SymbolBatch {
  ledger: SymbolLedger | undefined;
  applied = 0;
  latePrints = 0;
  duplicates = 0;
  late = 0;
  /** Trades older than the late-print window that the session trade log shows applied before. */
  redelivered = 0;
  outsideSession = 0;
  invalid = 0;
  unpriced = 0;
  amendmentsApplied = 0;
  readonly amendmentsRefused: Record<AmendmentRefusal, number> = {
    unknown_trade: 0,
    other_session: 0,
    duplicate: 0,
  };
  readonly inForce: InForceEvent[] = [];
  /** Completed bars to put (absolute values), by interval and time; undefined: to delete. */
  readonly bars = new Map<string, { interval: Interval; time: number; bar: Bar | undefined }>();
  /** Per minute: this batch's applied trades and amendments, in order (the log entries of its commit). */
  readonly log = new Map<number, { trades: LoggedTrade[]; amendments: LoggedAmendment[] }>();
  private readonly storedMinutes = new Map<number, TradeLogEntry[]>();
  /** The session's 1m bars, by the session's open; the 1d bars before a session, by its day. */
  private sessionMinutes: { openMs: number; bars: Map<number, Bar> } | undefined;
  private daysBefore: { dayTime: number; bars: Bar[] } | undefined;

  /**
   * `unlogged`: the trade-log entries of the commit that made `previous`, which may not be in the log yet (its
   * writer stopped before writing them, and this is a part of its batch delivered again, e.g. after a
   * bisection): they too tell a redelivery from a late print. `held`: the entries `previous` holds for its
   * latest minute, never in the log yet (splitLog in functions/domain/market-data/trade-log.ts): that
   * minute's trades after the log's.
   */
  constructor(
    readonly symbol: string,
    previous: SymbolLedger | undefined,
    private readonly ports: { readonly bars: BarStore; readonly tradeLog: SessionTradeLog },
    private readonly unlogged: readonly TradeLogEntry[] = [],
    private readonly held: readonly TradeLogEntry[] = [],
  ) {
    this.ledger = previous;
  }

  /** Whether anything is to be committed. */
  get changed(): boolean {
    return this.applied + this.latePrints + this.amendmentsApplied > 0;
  }

  /** The items in stream order: runs of trades folded, amendments applied between them. */
  async take(items: readonly StreamItem[]): Promise<void> {
    let run: Trade[] = [];
    for (const item of items) {
      if (!isAmendment(item)) {
        run.push(item);
        continue;
      }
      await this.fold(run);
      run = [];
      await this.amend(item);
    }
    await this.fold(run);
  }

  /** The log entries of this batch's commit at `version`. */
  logEntries(version: number): TradeLogEntry[] {
    return [...this.log].map(([minuteMs, { trades, amendments }]) => ({
      symbol: this.symbol,
      minuteMs,
      version,
      trades,
      amendments,
    }));
  }

  private async fold(trades: readonly Trade[]): Promise<void> {
    if (trades.length === 0) return;
    const fold = foldTrades(this.ledger, this.symbol, trades);
    const redelivered = await this.appliedBefore(
      fold.latePositions.map((position) => trades[position] as Trade),
    );
    this.applied += fold.applied;
    this.latePrints += fold.latePrints;
    this.duplicates += fold.duplicates;
    this.late += fold.late - redelivered;
    this.redelivered += redelivered;
    this.outsideSession += fold.outsideSession;
    this.invalid += fold.invalid;
    this.unpriced += fold.unpriced;
    if (fold.applied + fold.latePrints === 0) return;
    this.ledger = fold.ledger;
    this.inForce.push(...fold.inForce);
    for (const { interval, bar } of fold.completed as CompletedBar[]) {
      this.bars.set(barKey(interval, bar.time), { interval, time: bar.time, bar });
    }
    trades.forEach((trade, position) => {
      if (fold.appliedMarks[position] === 0) return;
      this.logged(Math.floor(trade.timestamp / MINUTE_MS) * MINUTE_MS).trades.push(logged(trade));
    });
  }

  /**
   * How many of these trades, each older than the late-print window, the session trade log (and this batch)
   * shows applied already: a redelivery, not a late print (docs/candles.md#late-and-early-prints). One read
   * of the log per minute they fall in, only when such trades come.
   */
  private async appliedBefore(trades: readonly Trade[]): Promise<number> {
    let found = 0;
    const byMinute = new Map<number, Set<string>>();
    for (const { timestamp, tradeId } of trades) {
      const minuteMs = Math.floor(timestamp / MINUTE_MS) * MINUTE_MS;
      let applied = byMinute.get(minuteMs);
      if (applied === undefined) {
        const minute = await this.minute(minuteMs);
        const pending = this.unlogged.filter((entry) => entry.minuteMs === minuteMs);
        applied = new Set(
          [...minute.trades, ...pending.flatMap((entry) => entry.trades)].map(
            (trade) => `${trade.timestamp} ${trade.tradeId}`,
          ),
        );
        byMinute.set(minuteMs, applied);
      }
      if (applied.has(`${timestamp} ${tradeId}`)) found++;
    }
    return found;
  }

  private logged(minuteMs: number): { trades: LoggedTrade[]; amendments: LoggedAmendment[] } {
    let entry = this.log.get(minuteMs);
    if (entry === undefined) {
      entry = { trades: [], amendments: [] };
      this.log.set(minuteMs, entry);
    }
    return entry;
  }

  /** A minute's trades and amendments so far: the log's, then the ledger's held ones, then this batch's. */
  private async minute(minuteMs: number): Promise<{ trades: LoggedTrade[]; amendments: LoggedAmendment[] }> {
    let stored = this.storedMinutes.get(minuteMs);
    if (stored === undefined) {
      stored = await this.ports.tradeLog.readMinute(this.symbol, minuteMs);
      this.storedMinutes.set(minuteMs, stored);
    }
    const batch = this.log.get(minuteMs);
    const entries = [
      ...stored,
      ...this.held.filter((entry) => entry.minuteMs === minuteMs),
      ...(batch ? [batch] : []),
    ];
    return {
      trades: entries.flatMap(({ trades }) => trades),
      amendments: entries.flatMap(({ amendments }) => amendments),
    };
  }

  private async amend(amendment: TradeAmendment): Promise<void> {
    const ledger = this.ledger;
    const times = isInPeriodRange(amendment.timestamp) ? sessionTimesAt(amendment.timestamp) : undefined;
    const current = ledger?.lastTrade === undefined ? undefined : sessionTimesAt(ledger.lastTrade.timestamp);
    if (ledger === undefined || times === undefined || current === undefined || current.day !== times.day) {
      // No session holds its time, or the symbol never traded: no trade to amend. Otherwise another session's.
      this.amendmentsRefused[
        times === undefined || current === undefined ? 'unknown_trade' : 'other_session'
      ]++;
      return;
    }
    const minuteMs = intradayStartMs(times, MINUTE_MS, amendment.timestamp);
    const { symbol: _symbol, ...change } = amendment;
    const minute = await this.minute(minuteMs);
    const before = amendedTrades(minute.trades, minute.amendments);
    const fit = amendmentFit(before, minute.amendments, change);
    if (fit !== 'applies') {
      this.amendmentsRefused[fit]++;
      return;
    }
    const after = amendTrade(before, change);
    this.logged(minuteMs).amendments.push(change);
    this.amendmentsApplied++;

    const minutes = await this.minutesOf(times.openMs, times.closeMs);
    const earlier = [...minutes.values()].filter((bar) => bar.time * MS_PER_SECOND < minuteMs);
    const lastSale =
      earlier.sort((a, b) => a.time - b.time).at(-1)?.close ?? ledger.recent?.['1d']?.at(-1)?.close;
    const rebuiltTimes = await this.rebuildMinutes(minutes, minuteMs, after, lastSale);
    const days = await this.daysBeforeSession(amendment.timestamp, times.day * 86_400);

    const next: SymbolLedger = { ...ledger, forming: { ...ledger.forming } };
    if (ledger.recent !== undefined) next.recent = { ...ledger.recent };
    for (const timestampMs of rebuiltTimes) {
      for (const { interval, period, bar } of rebuiltBars(timestampMs, [...minutes.values()], days)) {
        const forming = next.forming[interval];
        if (forming !== undefined && forming.time === period.time) {
          if (bar === undefined) delete next.forming[interval];
          else next.forming[interval] = { ...bar, startMs: forming.startMs, endMs: forming.endMs };
          continue;
        }
        if (forming === undefined && bar !== undefined && holdsLastTrade(period, ledger)) {
          // The bar of the last trade's period, gone with an earlier amendment and back: still forming.
          next.forming[interval] = { ...bar, startMs: period.startMs, endMs: period.endMs };
          continue;
        }
        this.bars.set(barKey(interval, period.time), { interval, time: period.time, bar });
        const recent = next.recent?.[interval];
        if (next.recent !== undefined && recent?.some((kept) => kept.time === period.time)) {
          next.recent[interval] = recent.flatMap((kept) =>
            kept.time !== period.time ? [kept] : bar === undefined ? [] : [bar],
          );
        }
      }
    }
    if (ledger.price !== undefined && ledger.price.tradeId === amendment.amends) {
      const trade = await this.lastSaleFrom(after, minuteMs, minutes);
      if (trade !== undefined) {
        next.price = {
          price: trade.price,
          volume: trade.size,
          timestamp: trade.timestamp,
          tradeId: trade.tradeId,
        };
      }
    }
    this.ledger = next;
  }

  /**
   * Folds the amended minute again (in `minutes`), then each following minute with trades that a volume-only
   * trade opens, while the last sale it opens at changed (minutes whose trades are all cancelled pass it on);
   * returns a time in each minute rebuilt.
   */
  private async rebuildMinutes(
    minutes: Map<number, Bar>,
    minuteMs: number,
    trades: readonly LoggedTrade[],
    lastSale: number | undefined,
  ): Promise<number[]> {
    const rebuilt: number[] = [];
    let time = minuteMs / MS_PER_SECOND;
    let current = trades;
    // The last sale before the minute, as it was and as it is now (the amended minute's is unchanged).
    let sale = { was: lastSale, is: lastSale };
    for (;;) {
      const previous = minutes.get(time);
      const bar = minuteBarOf(current, time, sale.is);
      if (bar === undefined) minutes.delete(time);
      else minutes.set(time, bar);
      rebuilt.push(time * MS_PER_SECOND);
      sale = { was: previous?.close ?? sale.was, is: bar?.close ?? sale.is };
      if (sale.was === sale.is) return rebuilt;
      const next = await this.nextMinuteWithTrades(time, minutes);
      if (next === undefined || inTimeOrder(next.trades)[0]?.volumeOnly !== true) return rebuilt;
      ({ time, trades: current } = next);
    }
  }

  /** The first minute after `time` (seconds) with trades left after its amendments, and those trades. */
  private async nextMinuteWithTrades(
    time: number,
    minutes: ReadonlyMap<number, Bar>,
  ): Promise<{ time: number; trades: LoggedTrade[] } | undefined> {
    for (let after = time; ; ) {
      const next = await this.nextTradedMinute(after, minutes);
      if (next === undefined) return undefined;
      const minute = await this.minute(next * MS_PER_SECOND);
      const trades = amendedTrades(minute.trades, minute.amendments);
      if (trades.length > 0) return { time: next, trades };
      after = next;
    }
  }

  /**
   * The first minute after `time` (seconds) that holds trades: one with a bar, or one whose trades are all
   * volume-only with no sale before them (no bar, only its log entries), in the log, the ledger's held
   * entries or this batch.
   */
  private async nextTradedMinute(
    time: number,
    minutes: ReadonlyMap<number, Bar>,
  ): Promise<number | undefined> {
    const afterMs = time * MS_PER_SECOND;
    const stored = await this.ports.tradeLog.nextMinute(this.symbol, afterMs);
    const later = [
      ...[...minutes.keys()].filter((minute) => minute > time),
      ...[...this.log.keys(), ...this.held.map((entry) => entry.minuteMs)]
        .filter((minuteMs) => minuteMs > afterMs)
        .map((minuteMs) => minuteMs / MS_PER_SECOND),
      ...(stored === undefined ? [] : [stored / MS_PER_SECOND]),
    ];
    return later.length === 0 ? undefined : Math.min(...later);
  }

  /** The last counting trade at or before the amended minute, searched back minute by minute in the session. */
  private async lastSaleFrom(
    trades: readonly LoggedTrade[],
    minuteMs: number,
    minutes: ReadonlyMap<number, Bar>,
  ): Promise<LoggedTrade | undefined> {
    const found = lastPricedTrade(trades);
    if (found !== undefined) return found;
    const earlier = [...minutes.keys()]
      .filter((time) => time * MS_PER_SECOND < minuteMs)
      .sort((a, b) => b - a);
    for (const time of earlier) {
      const minute = await this.minute(time * MS_PER_SECOND);
      const trade = lastPricedTrade(amendedTrades(minute.trades, minute.amendments));
      if (trade !== undefined) return trade;
    }
    return undefined;
  }

  /** The session's 1m bars: the stored ones, this batch's, and the ledger's forming one (read once). */
  private async minutesOf(openMs: number, closeMs: number): Promise<Map<number, Bar>> {
    if (this.sessionMinutes?.openMs !== openMs) {
      const stored = await this.ports.bars.query(
        { symbol: this.symbol, interval: '1m' },
        { fromTime: openMs / MS_PER_SECOND, toTime: closeMs / MS_PER_SECOND - 1, limit: 1_000 },
      );
      this.sessionMinutes = { openMs, bars: new Map(stored.map((bar) => [bar.time, bar])) };
    }
    const minutes = this.sessionMinutes.bars;
    for (const { interval, time, bar } of this.bars.values()) {
      if (interval !== '1m' || time * MS_PER_SECOND < openMs || time * MS_PER_SECOND >= closeMs) continue;
      if (bar === undefined) minutes.delete(time);
      else minutes.set(time, bar);
    }
    const forming = this.ledger?.forming['1m'];
    if (forming !== undefined && forming.startMs >= openMs && forming.startMs < closeMs) {
      const { startMs: _start, endMs: _end, ...bar } = forming;
      minutes.set(bar.time, bar);
    }
    return minutes;
  }

  /** The 1d bars of the year holding `timestampMs` before the session of `dayTime` (read once). */
  private async daysBeforeSession(timestampMs: number, dayTime: number): Promise<Bar[]> {
    if (this.daysBefore?.dayTime !== dayTime) {
      const year = periodAt('1y', timestampMs);
      const bars = await this.ports.bars.query(
        { symbol: this.symbol, interval: '1d' },
        { fromTime: year?.time ?? dayTime, toTime: dayTime - 1, limit: 400 },
      );
      this.daysBefore = { dayTime, bars };
    }
    const days = new Map(this.daysBefore.bars.map((bar) => [bar.time, bar]));
    for (const { interval, time, bar } of this.bars.values()) {
      if (interval !== '1d' || time >= dayTime) continue;
      if (bar === undefined) days.delete(time);
      else days.set(time, bar);
    }
    return [...days.values()];
  }
}
