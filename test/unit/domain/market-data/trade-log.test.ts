import { describe, expect, it } from 'vitest';
import {
  type CompactLogEntry,
  compactLogEntry,
  expandLogEntry,
  HELD_LOG_BYTES,
  splitLog,
} from '#domain/market-data/trade-log';

const MINUTE = 60_000;
const OPEN = Date.parse('2024-11-26T14:30:00Z');

/** An entry of `minute` at `version` with one trade per price given, ids from `firstId` on. */
function entry(
  minute: number,
  version: number,
  prices: readonly number[],
  options: { firstId?: number; volumeOnly?: readonly number[]; amends?: string } = {},
): CompactLogEntry {
  const minuteMs = OPEN + minute * MINUTE;
  return compactLogEntry({
    symbol: 'AAPL',
    minuteMs,
    version,
    trades: prices.map((price, index) => ({
      timestamp: minuteMs + index * 100,
      tradeId: `t${(options.firstId ?? 0) + index}`,
      price,
      size: 10,
      ...(options.volumeOnly?.includes(index) ? { volumeOnly: true } : {}),
    })),
    amendments: options.amends === undefined ? [] : [{ amends: options.amends, timestamp: minuteMs }],
  });
}

const tradesOf = (logged: CompactLogEntry | undefined) =>
  logged === undefined ? [] : expandLogEntry('AAPL', logged).trades;

describe('splitLog: the latest minute held by the ledger, every other written (docs/storage.md#the-session-trade-log)', () => {
  it('holds a small latest minute and writes nothing', () => {
    const split = splitLog(undefined, [entry(0, 3, [180])], 3);
    expect(split.written).toEqual([]);
    expect(split.held).toEqual(entry(0, 3, [180]));
  });

  it("merges the minute's held entries and the commit's in the order applied, at the commit's version", () => {
    const held = entry(0, 3, [180, 181], { volumeOnly: [1], amends: 'x' });
    const split = splitLog(held, [entry(0, 4, [182], { firstId: 2, volumeOnly: [0], amends: 'y' })], 4);
    expect(split.written).toEqual([]);
    expect(split.held?.version).toBe(4);
    expect(tradesOf(split.held).map(({ tradeId, volumeOnly }) => [tradeId, volumeOnly === true])).toEqual([
      ['t0', false],
      ['t1', true],
      ['t2', true],
    ]);
    expect(
      expandLogEntry('AAPL', split.held as CompactLogEntry).amendments.map(({ amends }) => amends),
    ).toEqual(['x', 'y']);
  });

  it('writes the held minute, merged, once a later minute comes, and holds the later one', () => {
    const held = entry(0, 3, [180, 181]);
    const split = splitLog(held, [entry(0, 4, [182], { firstId: 2 }), entry(1, 4, [183], { firstId: 3 })], 4);
    expect(split.written).toHaveLength(1);
    expect(split.written[0]?.minuteMs).toBe(OPEN);
    expect(split.written[0]?.version).toBe(4);
    expect(tradesOf(split.written[0]).map(({ tradeId }) => tradeId)).toEqual(['t0', 't1', 't2']);
    expect(tradesOf(split.held).map(({ tradeId }) => tradeId)).toEqual(['t3']);
  });

  it("writes a late print's earlier minute at once, and keeps holding the latest", () => {
    const split = splitLog(entry(5, 3, [180]), [entry(4, 4, [179], { firstId: 1 })], 4);
    expect(split.written.map(({ minuteMs }) => minuteMs)).toEqual([OPEN + 4 * MINUTE]);
    expect(split.held?.minuteMs).toBe(OPEN + 5 * MINUTE);
    expect(split.held?.version).toBe(4);
  });

  it(`writes the latest minute too once it takes more than ${HELD_LOG_BYTES} bytes`, () => {
    const prices = Array.from({ length: 40 }, (_, index) => 180 + index / 100);
    const split = splitLog(entry(0, 3, [180]), [entry(0, 4, prices, { firstId: 1 })], 4);
    expect(split.held).toBeUndefined();
    expect(split.written).toHaveLength(1);
    expect(tradesOf(split.written[0])).toHaveLength(41);
    expect(JSON.stringify(split.written[0]).length).toBeGreaterThan(HELD_LOG_BYTES);
  });

  it('keeps what was held when the commit logs nothing of its own, and holds nothing when nothing came', () => {
    expect(splitLog(entry(0, 3, [180]), [], 4)).toEqual({
      written: [],
      held: { ...entry(0, 3, [180]), version: 4 },
    });
    expect(splitLog(undefined, [], 4)).toEqual({ written: [] });
  });
});
