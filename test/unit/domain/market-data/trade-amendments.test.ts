import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Bar, Trade } from '#domain/market-data/bars';
import type { Interval } from '#domain/market-data/intervals';
import {
  amendedTrades,
  amendmentFit,
  type LoggedAmendment,
  type LoggedTrade,
  minuteBarOf,
  rebuiltBars,
} from '#domain/market-data/trade-amendments';
import { amendmentFields, barsFolded, OPEN_FRI, tapeOf, tradeArb } from '../../../support/amended-tapes.ts';

const MINUTE = 60_000;
const FRIDAY = Date.parse('2024-03-08T00:00:00Z');

const minuteOf = (timestamp: number) => Math.floor(timestamp / MINUTE) * MINUTE;

const logged = ({ symbol: _symbol, ...trade }: Trade): LoggedTrade => trade;

/** The tape with the amendments applied, as the market truly printed it. */
function amendedTape(trades: readonly Trade[], amendments: readonly LoggedAmendment[]): Trade[] {
  return amendedTrades(trades.map(logged), amendments).map((trade) => ({ symbol: 'AAPL', ...trade }));
}

const amendmentArb = fc.record(amendmentFields);

describe('rebuilding bars after an amendment', () => {
  it('for random trades and random cancels and corrections, equals the bars folded from the amended tape', () => {
    fc.assert(
      fc.property(
        fc.array(tradeArb, { minLength: 1, maxLength: 60 }),
        fc.array(amendmentArb, { minLength: 1, maxLength: 8 }),
        (drawn, drawnAmendments) => {
          const trades: Trade[] = tapeOf(drawn);
          const friday = trades.filter((trade) => trade.timestamp >= OPEN_FRI);
          fc.pre(friday.length > 0);
          const amendments: LoggedAmendment[] = drawnAmendments.map((drawnOne, index) => {
            const target = friday[drawnOne.target % friday.length] as Trade;
            return drawnOne.cancel
              ? { amends: target.tradeId, timestamp: target.timestamp }
              : {
                  amends: target.tradeId,
                  timestamp: target.timestamp,
                  corrected: {
                    price: drawnOne.cents / 100,
                    size: drawnOne.size,
                    tradeId: `c${index}`,
                    ...(drawnOne.volumeOnly ? { volumeOnly: true } : {}),
                  },
                };
          });
          // A minute opened by a volume-only trade opens at the sale before it; reopening it when an amendment of
          // an earlier minute changes that sale is the use case's (functions/use-cases/symbol-batch.ts, tested in
          // test/unit/use-cases/ingest-amendments-property.test.ts), so this test leaves such tapes out.
          const amendedMinutes = amendments.map(({ timestamp }) => minuteOf(timestamp));
          const tape = amendedTape(trades, amendments);
          for (const list of [trades, tape]) {
            const firstOfMinute = new Map<number, Trade>();
            for (const trade of list) {
              if (trade.timestamp >= OPEN_FRI && !firstOfMinute.has(minuteOf(trade.timestamp))) {
                firstOfMinute.set(minuteOf(trade.timestamp), trade);
              }
            }
            for (const [minute, first] of firstOfMinute) {
              fc.pre(!(first.volumeOnly === true && amendedMinutes.some((amended) => amended < minute)));
            }
          }

          // What the ingest path holds before the amendments: the bars of the original tape, the trades logged.
          const original = barsFolded(trades);
          const minutes = new Map<number, Bar>();
          const daysBefore: Bar[] = [];
          for (const [key, bar] of original) {
            if (key.startsWith('1m@') && bar.time * 1000 >= OPEN_FRI) minutes.set(bar.time, bar);
            if (key.startsWith('1d@') && bar.time * 1000 < FRIDAY) daysBefore.push(bar);
          }
          const log = new Map<number, { trades: LoggedTrade[]; amendments: LoggedAmendment[] }>();
          for (const trade of friday) {
            const entry = log.get(minuteOf(trade.timestamp)) ?? { trades: [], amendments: [] };
            entry.trades.push(logged(trade));
            log.set(minuteOf(trade.timestamp), entry);
          }
          const rebuilt = new Map<string, Bar | undefined>();
          for (const amendment of amendments) {
            const minute = minuteOf(amendment.timestamp);
            const entry = log.get(minute) as { trades: LoggedTrade[]; amendments: LoggedAmendment[] };
            const current = amendedTrades(entry.trades, entry.amendments);
            const fit = amendmentFit(current, entry.amendments, amendment);
            if (fit !== 'applies') continue;
            entry.amendments.push(amendment);
            const before = [...minutes.values()]
              .filter((bar) => bar.time * 1000 < minute)
              .sort((a, b) => a.time - b.time);
            const lastSale = before.at(-1)?.close ?? daysBefore.at(-1)?.close;
            const bar = minuteBarOf(amendedTrades(entry.trades, entry.amendments), minute / 1000, lastSale);
            if (bar === undefined) minutes.delete(minute / 1000);
            else minutes.set(minute / 1000, bar);
            for (const { interval, period, bar: rebuiltBar } of rebuiltBars(
              amendment.timestamp,
              [...minutes.values()],
              daysBefore,
            )) {
              rebuilt.set(`${interval}@${period.time}`, rebuiltBar);
            }
          }

          const truth = barsFolded(tape);
          for (const [key, bar] of rebuilt) expect([key, bar]).toEqual([key, truth.get(key)]);
          const truthMinutes = [...truth]
            .filter(([key, bar]) => key.startsWith('1m@') && bar.time * 1000 >= OPEN_FRI)
            .map(([, bar]) => bar);
          expect([...minutes.values()].sort((a, b) => a.time - b.time)).toEqual(
            truthMinutes.sort((a, b) => a.time - b.time),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('finds an amendment applied before a duplicate, and one of a trade not in the minute unknown', () => {
    const trades: LoggedTrade[] = [{ timestamp: OPEN_FRI, tradeId: 'a', price: 10, size: 1 }];
    const cancel: LoggedAmendment = { amends: 'a', timestamp: OPEN_FRI };
    expect(amendmentFit(trades, [], cancel)).toBe('applies');
    expect(amendmentFit(amendedTrades(trades, [cancel]), [cancel], cancel)).toBe('duplicate');
    expect(amendmentFit(trades, [], { amends: 'b', timestamp: OPEN_FRI })).toBe('unknown_trade');
  });

  it('opens a minute whose first remaining trade is volume-only at the last sale, and leaves none when all go', () => {
    const trades: LoggedTrade[] = [
      { timestamp: OPEN_FRI + 1, tradeId: 'a', price: 1800, size: 100 },
      { timestamp: OPEN_FRI + 2, tradeId: 'b', price: 181, size: 5, volumeOnly: true },
      { timestamp: OPEN_FRI + 3, tradeId: 'c', price: 180.2, size: 100 },
    ];
    const time = OPEN_FRI / 1000;
    expect(minuteBarOf(amendedTrades(trades, [{ amends: 'a', timestamp: OPEN_FRI + 1 }]), time, 180)).toEqual(
      {
        time,
        open: 180,
        high: 180.2,
        low: 180,
        close: 180.2,
        volume: 105,
      },
    );
    expect(minuteBarOf([], time, 180)).toBeUndefined();
  });

  it("leaves no 1d bar, and the week its earlier sessions only, when the session's one trade is cancelled", () => {
    const thursday: Bar = {
      time: Date.parse('2024-03-07T00:00:00Z') / 1000,
      open: 1,
      high: 2,
      low: 1,
      close: 2,
      volume: 3,
    };
    const rebuilt = new Map<Interval, Bar | undefined>(
      rebuiltBars(OPEN_FRI + 5, [], [thursday]).map(({ interval, bar }) => [interval, bar]),
    );
    expect(rebuilt.get('1m')).toBeUndefined();
    expect(rebuilt.get('1d')).toBeUndefined();
    expect(rebuilt.get('1w')).toEqual({ ...thursday, time: Date.parse('2024-03-04T00:00:00Z') / 1000 });
  });
});
