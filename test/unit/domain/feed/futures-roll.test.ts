import { describe, expect, it } from 'vitest';
import { isTradingDay, sessionsBetween } from '#domain/calendar/sessions';
import {
  expiryOf,
  frontContract,
  providerSymbolOn,
  ROLL_BUSINESS_DAYS_BEFORE_EXPIRY,
  rollCalendar,
} from '#domain/feed/futures-roll';

describe('futures roll calendar', () => {
  it('puts expiry on the third Friday of each quarterly month', () => {
    expect(rollCalendar('ES', 2024, 2025).map((contract) => [contract.code, contract.expiry])).toEqual([
      ['ESH4', '2024-03-15'],
      ['ESM4', '2024-06-21'],
      ['ESU4', '2024-09-20'],
      ['ESZ4', '2024-12-20'],
      ['ESH5', '2025-03-21'],
      ['ESM5', '2025-06-20'],
      ['ESU5', '2025-09-19'],
      ['ESZ5', '2025-12-19'],
    ]);
  });

  it('rolls on the Thursday of the week before expiry when no holiday intervenes', () => {
    // June 2026 and June 2027: the third Friday is Juneteenth (observed), so expiry is the Thursday before
    // and the roll a day earlier.
    expect(rollCalendar('NQ', 2026, 2027).map((contract) => [contract.code, contract.rollDate])).toEqual([
      ['NQH6', '2026-03-12'],
      ['NQM6', '2026-06-10'],
      ['NQU6', '2026-09-10'],
      ['NQZ6', '2026-12-10'],
      ['NQH7', '2027-03-11'],
      ['NQM7', '2027-06-09'],
      ['NQU7', '2027-09-09'],
      ['NQZ7', '2027-12-09'],
    ]);
  });

  it('counts the roll in trading days: a holiday in between moves it a day earlier', () => {
    // 2025-06-19 (Juneteenth) is a holiday between the roll and the expiry (2025-06-20) of June 2025.
    expect(rollCalendar('ES', 2025, 2025)[1]?.rollDate).toBe('2025-06-11');
    expect(frontContract('ES', '2025-06-10').code).toBe('ESM5');
    expect(frontContract('ES', '2025-06-11').code).toBe('ESU5');
  });

  it('moves expiry back to the trading day before when the exchange is shut on the third Friday', () => {
    // Good Friday 2008 fell on March 21, the third Friday.
    expect(expiryOf(2008, 3)).toBe('2008-03-20');
  });

  it('keeps every roll exactly the fixed number of trading days before expiry, 2020 to 2035', () => {
    for (const contract of rollCalendar('RTY', 2020, 2035)) {
      expect(isTradingDay(contract.rollDate)).toBe(true);
      expect(isTradingDay(contract.expiry)).toBe(true);
      const between = sessionsBetween(contract.rollDate, contract.expiry);
      expect(between.length - 1).toBe(ROLL_BUSINESS_DAYS_BEFORE_EXPIRY);
    }
  });

  it('names a front contract for every day of 2020 to 2035, switching only on roll dates', () => {
    const calendar = rollCalendar('YM', 2020, 2036);
    let previous = frontContract('YM', '2020-01-01');
    for (let day = Date.parse('2020-01-02'); day <= Date.parse('2035-12-31'); day += 86_400_000) {
      const date = new Date(day).toISOString().slice(0, 10);
      const front = frontContract('YM', date);
      expect(date < front.rollDate).toBe(true);
      if (front.code !== previous.code) {
        expect(date).toBe(previous.rollDate);
        const index = calendar.findIndex(
          (contract) => contract.code === previous.code && contract.year === previous.year,
        );
        expect(calendar[index + 1]?.code).toBe(front.code);
      }
      previous = front;
    }
  });

  it('maps continuous symbols to their front contract and leaves others alone', () => {
    expect(providerSymbolOn('ES1!', '2026-11-25')).toBe('ESZ6');
    expect(providerSymbolOn('RTY1!', '2026-12-10')).toBe('RTYH7');
    expect(providerSymbolOn('AAPL', '2026-11-25')).toBe('AAPL');
  });
});
