/**
 * The worked examples of docs/strat.md, computed by the engine: if a rule changes, this test fails until
 * the document is brought up to date.
 */
import { describe, expect, it } from 'vitest';
import type { Trade } from '#domain/market-data/bars';
import type { SymbolLedger } from '#domain/market-data/ledger';
import { simultaneousBreaks } from '#domain/strat/breaks';
import type { InForceEvent } from '#domain/strat/in-force';
import { deriveSymbolState, type SetupRow } from '#domain/strat/setups';
import { foldTrades } from '#domain/strat/trade-fold';
import { perTestTradeIds, trade } from '../../../support/builders.ts';

type Ohlc = readonly [open: number, high: number, low: number, close: number];

const SYMBOL = 'AAPL';
const SECTOR = 'Information Technology';
const HISTORY_DAYS = ['2024-05-13', '2024-05-14', '2024-05-15', '2024-05-16'];
const CC_DAY = '2024-05-17';
/** 10:00, 11:00 ... New York (EDT). */
const CC_TIMES = ['14:00', '15:00', '16:00', '17:00', '18:00', '19:00'];

/** Trade ids, counted from the start in every test. */
const ids = perTestTradeIds();

/** Daily bars as four trades (09:35 open, 11:00 high, 13:00 low, 15:55 close, New York), then Friday's trades. */
function run(history: readonly Ohlc[], cc: readonly number[]) {
  const days = HISTORY_DAYS.slice(HISTORY_DAYS.length - history.length);
  const trades = history.flatMap(([open, high, low, close], index) => {
    const day = days[index] as string;
    return [
      trade(`${day}T13:35:00Z`, open, { ids }),
      trade(`${day}T15:00:00Z`, high, { ids }),
      trade(`${day}T17:00:00Z`, low, { ids }),
      trade(`${day}T19:55:00Z`, close, { ids }),
    ];
  });
  const { ledger } = foldTrades(undefined, SYMBOL, trades);
  const friday = cc.map((price, index) =>
    trade(`${CC_DAY}T${CC_TIMES[index] as string}:00Z`, price, { ids }),
  );
  const live = foldTrades(ledger, SYMBOL, friday);
  const nowMs = (friday.at(-1) as Trade).timestamp;
  return {
    ledger: live.ledger,
    row: deriveSymbolState(live.ledger, nowMs, SECTOR).setups.find((row) => row.timeframe === 'D'),
    alerts: live.inForce
      .filter((event) => event.timeframe === 'D')
      .map(({ symbol, timeframe, direction, shape, price, triggeredAt, cc: type }) => ({
        symbol,
        timeframe,
        direction,
        shape,
        price,
        triggered_at: new Date(triggeredAt).toISOString(),
        cc: type,
      })),
  };
}

const row = (shape: string, fields: Partial<SetupRow>): SetupRow => ({
  symbol: SYMBOL,
  timeframe: 'D',
  shape,
  in_force: true,
  p3: false,
  pmg: null,
  continuation: false,
  sector: SECTOR,
  ...fields,
});

const alert = (direction: string, shape: string, price: number, time: string, cc: string) => ({
  symbol: SYMBOL,
  timeframe: 'D',
  direction,
  shape,
  price,
  triggered_at: `${CC_DAY}T${time}:00.000Z`,
  cc,
});

describe('docs/strat.md worked examples', () => {
  it('2-1-2', () => {
    const result = run(
      [
        [100, 101, 99, 100.5],
        [100.5, 103, 99.5, 102.5],
        [102.5, 102.8, 101, 101.5],
      ],
      [101.6, 102.5, 103.2, 103],
    );
    expect(result.row).toEqual(row('2U-1', { pmg: 103 }));
    expect(result.alerts).toEqual([alert('bullish', '2U-1', 103.2, '16:00', '2U')]);
    // After Friday's close: no CC; C1 is Friday's 2U, C2 Thursday's inside bar.
    const after = deriveSymbolState(result.ledger, Date.parse('2024-05-17T20:00:00Z'), SECTOR);
    expect(after.setups.find((r) => r.timeframe === 'D')).toEqual(row('1-2U', { in_force: false }));
  });

  it('3-1-2, becoming a 3', () => {
    const result = run(
      [
        [100, 101, 99, 100],
        [100, 102, 98, 99],
        [99, 100.5, 98.5, 100],
      ],
      [99.8, 99, 98.4, 100, 100.6],
    );
    expect(result.row).toEqual(row('3-1', { p3: true, pmg: 102 }));
    expect(result.alerts).toEqual([
      alert('bearish', '3-1', 98.4, '16:00', '2D'),
      alert('bullish', '3-1', 100.6, '18:00', '3'),
    ]);
  });

  it('1-2-2 (revstrat)', () => {
    const result = run(
      [
        [100, 102, 98, 101],
        [101, 101.5, 99, 100],
        [100, 101, 98.5, 99],
      ],
      [99.2, 100.5, 101.2],
    );
    expect(result.row).toEqual(row('1-2D', { pmg: 101.5 }));
    expect(result.alerts).toEqual([alert('bullish', '1-2D', 101.2, '16:00', '2U')]);
  });

  it('2-2 reversal', () => {
    const result = run(
      [
        [100, 101, 99, 100],
        [100, 100.8, 98.5, 99],
        [99, 99.5, 97.5, 98],
      ],
      [98.2, 99, 99.7],
    );
    expect(result.row).toEqual(row('2D-2D', { pmg: 100.8 }));
    expect(result.alerts).toEqual([alert('bullish', '2D-2D', 99.7, '16:00', '2U')]);
  });

  it('2-2 continuation', () => {
    const result = run(
      [
        [103, 104, 102.5, 103.2],
        [100, 101, 99, 100.5],
        [100.5, 101.5, 99.5, 101],
        [101, 102.5, 100, 102],
      ],
      [102.1, 102.8],
    );
    expect(result.row).toEqual(row('2U-2U', { pmg: 104, continuation: true }));
    expect(result.alerts).toEqual([alert('bullish', '2U-2U', 102.8, '15:00', '2U')]);
  });

  it('3-2-2', () => {
    const result = run(
      [
        [100, 101, 99, 100],
        [100, 101.5, 98.5, 99.5],
        [99.5, 100.5, 97.8, 98.2],
      ],
      [98.3, 99.5, 100.7],
    );
    expect(result.row).toEqual(row('3-2D', { pmg: 101.5 }));
    expect(result.alerts).toEqual([alert('bullish', '3-2D', 100.7, '16:00', '2U')]);
  });

  it('a simultaneous break reaching 3, then no 4 (NQ and ES left the window)', () => {
    const periodTime = Date.parse('2024-05-17T00:00:00Z') / 1000;
    const broke = (symbol: string, time: string): InForceEvent => ({
      symbol,
      timeframe: 'D',
      direction: 'bullish',
      shape: '2D-1',
      price: 1,
      triggeredAt: Date.parse(`2024-05-17T${time}Z`),
      cc: '2U',
      periodTime,
    });
    const breaks = simultaneousBreaks([
      broke('NQ1!', '14:00:05'),
      broke('ES1!', '14:01:30'),
      broke('YM1!', '14:04:00'),
      broke('RTY1!', '14:09:30'),
    ]).map(({ timeframe, direction, threshold, symbols, triggeredAt }) => ({
      timeframe,
      direction,
      threshold,
      symbols,
      triggered_at: new Date(triggeredAt).toISOString(),
    }));
    expect(breaks).toEqual([
      {
        timeframe: 'D',
        direction: 'bullish',
        threshold: 2,
        symbols: ['NQ1!', 'ES1!'],
        triggered_at: '2024-05-17T14:01:30.000Z',
      },
      {
        timeframe: 'D',
        direction: 'bullish',
        threshold: 3,
        symbols: ['NQ1!', 'ES1!', 'YM1!'],
        triggered_at: '2024-05-17T14:04:00.000Z',
      },
    ]);
  });

  it('keeps the ledger serialisable (what the doc shows is what is stored)', () => {
    const { ledger } = run([[100, 101, 99, 100]], [100]);
    expect(JSON.parse(JSON.stringify(ledger)) as SymbolLedger).toEqual(ledger);
  });
});
