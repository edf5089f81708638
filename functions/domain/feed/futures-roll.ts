/**
 * The universe's continuous index futures (`ES1!`, `NQ1!`, `RTY1!`, `YM1!`) and the contract each stands for on
 * a day: the front month of the CME quarterly cycle (March H, June M, September U, December Z), rolled a fixed
 * number of business days before its expiry (docs/data-sources.md#index-futures-and-the-roll).
 *
 * - Expiry: the third Friday of the contract month, or the trading day before it when the exchange is shut
 *   that Friday. Business days are the market calendar's trading days (functions/domain/calendar/sessions.ts).
 * - Roll: ROLL_BUSINESS_DAYS_BEFORE_EXPIRY trading days before expiry, from that day's session on, the next
 *   quarterly contract is the front. Six trading days is the Thursday of the week before expiry when no
 *   holiday intervenes: the CME's customary roll date for its equity index futures, when volume moves on.
 * - A contract is named the CME Globex way: root, month code, last digit of the year (`ESZ5`).
 */
import { isTradingDay, previousSession } from '../calendar/sessions.ts';
import { epochDayOf, isoDateOf, weekdayOf } from '../calendar/time-zone.ts';

export const ROLL_BUSINESS_DAYS_BEFORE_EXPIRY = 6;

/** The universe's continuous futures symbols and their CME roots. */
export const CONTINUOUS_FUTURES: Readonly<Record<string, string>> = Object.freeze({
  'ES1!': 'ES',
  'NQ1!': 'NQ',
  'RTY1!': 'RTY',
  'YM1!': 'YM',
});

const QUARTER_MONTHS = [3, 6, 9, 12] as const;
const MONTH_CODES: Readonly<Record<number, string>> = { 3: 'H', 6: 'M', 9: 'U', 12: 'Z' };
const FRIDAY = 5;

export interface FuturesContract {
  readonly root: string;
  readonly year: number;
  readonly month: number;
  /** CME Globex code, e.g. `ESZ5`. */
  readonly code: string;
  /** Last trading day, `YYYY-MM-DD`. */
  readonly expiry: string;
  /** The first day the next contract is the front, `YYYY-MM-DD`. */
  readonly rollDate: string;
}

export function isContinuousFuture(symbol: string): boolean {
  return Object.hasOwn(CONTINUOUS_FUTURES, symbol);
}

/** The third Friday of a month, moved back to the trading day before it when the exchange is shut. */
export function expiryOf(year: number, month: number): string {
  const first = epochDayOf(year, month, 1);
  const firstFriday = first + ((FRIDAY - weekdayOf(first) + 7) % 7);
  const thirdFriday = isoDateOf(firstFriday + 14);
  return isTradingDay(thirdFriday) ? thirdFriday : (previousSession(thirdFriday)?.date ?? thirdFriday);
}

/** The trading day `count` trading days before `date`. */
function tradingDaysBefore(date: string, count: number): string {
  let day = date;
  for (let step = 0; step < count; step++) {
    const previous = previousSession(day);
    if (previous === undefined) throw new RangeError(`No trading day ${count} before ${date}`);
    day = previous.date;
  }
  return day;
}

export function quarterlyContract(root: string, year: number, month: number): FuturesContract {
  const code = MONTH_CODES[month];
  if (code === undefined) throw new RangeError(`${month} is not a quarterly contract month`);
  const expiry = expiryOf(year, month);
  return {
    root,
    year,
    month,
    code: `${root}${code}${year % 10}`,
    expiry,
    rollDate: tradingDaysBefore(expiry, ROLL_BUSINESS_DAYS_BEFORE_EXPIRY),
  };
}

/** The front contract of `root` on `date` (`YYYY-MM-DD`, New York): the first one whose roll is after it. */
export function frontContract(root: string, date: string): FuturesContract {
  const year = Number(date.slice(0, 4));
  for (const y of [year, year + 1]) {
    for (const month of QUARTER_MONTHS) {
      const contract = quarterlyContract(root, y, month);
      if (date < contract.rollDate) return contract;
    }
  }
  throw new RangeError(`No front contract of ${root} on ${date}`);
}

/** Every quarterly contract of `root` expiring in the years given, in order: the roll calendar. */
export function rollCalendar(root: string, fromYear: number, toYear: number): FuturesContract[] {
  const contracts: FuturesContract[] = [];
  for (let year = fromYear; year <= toYear; year++) {
    for (const month of QUARTER_MONTHS) contracts.push(quarterlyContract(root, year, month));
  }
  return contracts;
}

/**
 * The provider symbol to subscribe for a universe symbol on a day: the front contract's code for a
 * continuous future, the symbol itself otherwise.
 */
export function providerSymbolOn(symbol: string, date: string): string {
  const root = CONTINUOUS_FUTURES[symbol];
  return root === undefined ? symbol : frontContract(root, date).code;
}
