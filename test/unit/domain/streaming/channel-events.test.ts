import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import type { LatestPrice } from '#domain/market-data/bars';
import { priceMoved } from '#domain/market-data/prices';
import type { SetupRow } from '#domain/strat/setups';
import {
  type ChangeContext,
  channelEventOf,
  quoteEventOf,
  type SourceChange,
} from '#domain/streaming/channel-events';
import { pushSchemas } from '#domain/streaming/messages';
import { instrument } from '../../../support/builders.ts';

const RECORDED_AT_MS = Date.parse('2024-11-26T15:30:00Z');
const INSTRUMENTS = new Map([
  ['AAPL', instrument('AAPL', { sector: 'Information Technology' })],
  ['MSFT', instrument('MSFT')],
]);
const LATEST: ReadonlyMap<string, LatestPrice> = new Map([
  ['AAPL', { price: 190.5, volume: 300, timestamp: Date.parse('2024-11-26T15:29:59Z'), tradeId: 't-9' }],
]);
const context: ChangeContext = {
  instrument: (symbol) => INSTRUMENTS.get(symbol),
  latestPrice: (symbol) => LATEST.get(symbol),
};

function change(
  table: SourceChange['table'],
  kind: SourceChange['kind'],
  images: { newItem?: Record<string, unknown>; oldItem?: Record<string, unknown> },
): SourceChange {
  return { table, kind, eventId: 'ev-1', recordedAtMs: RECORDED_AT_MS, ...images };
}

/** A latest price, as a ledger holds it. */
const latest = (price: number, overrides: Partial<LatestPrice> = {}): LatestPrice => ({
  price,
  volume: 100,
  timestamp: Date.parse('2024-11-26T15:29:59Z'),
  tradeId: `t-${price}`,
  ...overrides,
});

const row = (overrides: Partial<SetupRow> = {}): SetupRow => ({
  symbol: 'AAPL',
  timeframe: 'D',
  shape: '2D-2U',
  in_force: true,
  p3: false,
  pmg: 195.25,
  continuation: false,
  sector: 'Information Technology',
  ...overrides,
});

const state = (overrides: Record<string, unknown> = {}) => ({
  symbol: 'AAPL',
  updatedAtMs: RECORDED_AT_MS,
  tfc: { D: 'green', W: 'red' },
  setups: [row()],
  ...overrides,
});

const alertItem = {
  feed: 'in-force',
  id: 12,
  triggeredAtMs: RECORDED_AT_MS,
  onceKey: 'k',
  symbol: 'AAPL',
  body: {
    symbol: 'AAPL',
    timeframe: '60',
    direction: 'bullish',
    shape: '1-2U',
    price: 190.5,
    triggered_at: '2024-11-26T15:30:00.000Z',
    cc: '2U',
  },
};

const breakItem = {
  feed: 'simultaneous-breaks',
  id: 4,
  triggeredAtMs: RECORDED_AT_MS,
  onceKey: 'b',
  body: {
    timeframe: '15',
    direction: 'bearish',
    threshold: 3,
    symbols: ['ES1!', 'NQ1!', 'YM1!'],
    triggered_at: '2024-11-26T15:30:00.000Z',
  },
};

describe('quoteEventOf', () => {
  it('is a quotes event with the price item, its id the symbol and ledger version, its time the trade’s', () => {
    const event = quoteEventOf({ symbol: 'AAPL', version: 7, ...latest(190.5) });

    expect(event).toEqual({
      eventId: 'AAPL#7',
      recordedAtMs: Date.parse('2024-11-26T15:29:59Z'),
      tradedAtMs: Date.parse('2024-11-26T15:29:59Z'),
      channel: 'quotes',
      symbols: ['AAPL'],
      message: { channel: 'quotes', symbol: 'AAPL', data: { symbol: 'AAPL', price: 190.5, volume: 100 } },
    });
    expect(z.strictObject(pushSchemas.quotes.shape).parse(event.message)).toEqual(event.message);
  });

  it('is the same event when the same commit is pushed again (a redelivered batch): billed once', () => {
    const move = { symbol: 'AAPL', version: 7, ...latest(190.5) };

    expect(quoteEventOf({ ...move })).toEqual(quoteEventOf(move));
    expect(quoteEventOf({ ...move, version: 8 }).eventId).not.toBe(quoteEventOf(move).eventId);
  });
});

describe('priceMoved', () => {
  it('is true for a first price, and false for none', () => {
    expect(priceMoved(undefined, latest(190))).toBe(true);
    expect(priceMoved(latest(190), undefined)).toBe(false);
    expect(priceMoved(undefined, undefined)).toBe(false);
  });

  it('is false when the commit left the price as it was (a commit that only closed bars)', () => {
    expect(priceMoved(latest(190), latest(190))).toBe(false);
  });

  it.each<[string, Partial<LatestPrice>]>([
    ['its price', { price: 191 }],
    ['the size of the last trade', { volume: 5 }],
    ['the trade behind it, at the same price', { tradeId: 't-other' }],
    ['its time', { timestamp: Date.parse('2024-11-26T15:30:00Z') }],
  ])('is true when only %s changed', (_case, change_) => {
    expect(priceMoved(latest(190), latest(190, change_))).toBe(true);
  });
});

describe('channelEventOf: states', () => {
  it('returns a states event with the state snapshot when a state is first written', () => {
    const event = channelEventOf(change('states', 'INSERT', { newItem: state() }), context);

    expect(event).toEqual({
      eventId: 'ev-1',
      recordedAtMs: RECORDED_AT_MS,
      channel: 'states',
      symbols: ['AAPL'],
      message: {
        channel: 'states',
        symbol: 'AAPL',
        data: {
          symbol: 'AAPL',
          instrument: INSTRUMENTS.get('AAPL'),
          price: { price: 190.5, volume: 300, time: '2024-11-26T15:29:59.000Z' },
          tfc: { D: 'green', W: 'red' },
          setups: [row()],
          default_timeframe: 'D',
          chart_timeframes: ['15', '30', '60', '4H', 'D', 'W', 'M', 'Q', 'Y'],
        },
      },
    });
    expect(pushSchemas.states.parse(event?.message)).toEqual(event?.message);
  });

  it('pushes an empty price when the symbol has no trade on record', () => {
    const msft = state({ symbol: 'MSFT', setups: [row({ symbol: 'MSFT' })] });

    const event = channelEventOf(change('states', 'INSERT', { newItem: msft }), context);

    expect(event?.message).toMatchObject({ channel: 'states', symbol: 'MSFT', data: { price: {} } });
  });

  it.each<[string, Record<string, unknown>]>([
    ['TFC changed', { tfc: { D: 'red', W: 'red' } }],
    ['a timeframe gained a TFC color', { tfc: { D: 'green', W: 'red', M: 'yellow' } }],
    ['a setup row changed', { setups: [row({ in_force: false, pmg: null })] }],
    ['a setup row was added', { setups: [row(), row({ timeframe: 'W' })] }],
    ['the setup rows went away', { setups: [] }],
  ])('returns a states event when %s', (_case, changed) => {
    const event = channelEventOf(
      change('states', 'MODIFY', {
        oldItem: state(),
        newItem: state({ ...changed, updatedAtMs: RECORDED_AT_MS + 1 }),
      }),
      context,
    );

    expect(event?.channel).toBe('states');
  });

  it('returns nothing when only the derivation time changed', () => {
    const event = channelEventOf(
      change('states', 'MODIFY', {
        oldItem: state(),
        newItem: state({ updatedAtMs: RECORDED_AT_MS + 60_000 }),
      }),
      context,
    );

    expect(event).toBeUndefined();
  });

  it('returns nothing when TFC and setups are equal but their keys were written in another order', () => {
    const reordered = state({
      tfc: { W: 'red', D: 'green' },
      setups: [
        {
          sector: 'Information Technology',
          continuation: false,
          pmg: 195.25,
          p3: false,
          in_force: true,
          shape: '2D-2U',
          timeframe: 'D',
          symbol: 'AAPL',
        },
      ],
    });

    const event = channelEventOf(
      change('states', 'MODIFY', { oldItem: state(), newItem: reordered }),
      context,
    );

    expect(event).toBeUndefined();
  });

  it('returns nothing for the state of an instrument that is not in the universe', () => {
    const unknown = state({ symbol: 'ZZZZ', setups: [row({ symbol: 'ZZZZ' })] });

    expect(channelEventOf(change('states', 'INSERT', { newItem: unknown }), context)).toBeUndefined();
  });
});

describe('channelEventOf: alerts', () => {
  it("measures an alert's latency from its own time (`atMs`), not its block's time in the byTime index", () => {
    const { symbol: _symbol, ...rest } = alertItem;
    const newItem = { ...rest, atMs: RECORDED_AT_MS - 1_000, triggeredAtMs: RECORDED_AT_MS + 5_000 };
    const event = channelEventOf(change('alerts', 'INSERT', { newItem }), context);
    expect(event?.tradedAtMs).toBe(RECORDED_AT_MS - 1_000);
  });

  it('returns an alerts.in_force event with the alert and its id when an alert is appended', () => {
    const event = channelEventOf(change('alerts', 'INSERT', { newItem: alertItem }), context);

    expect(event).toEqual({
      eventId: 'ev-1',
      recordedAtMs: RECORDED_AT_MS,
      tradedAtMs: alertItem.triggeredAtMs,
      channel: 'alerts.in_force',
      symbols: ['AAPL'],
      message: { channel: 'alerts.in_force', symbol: 'AAPL', data: { id: 12, ...alertItem.body } },
    });
    expect(z.strictObject(pushSchemas['alerts.in_force'].shape).parse(event?.message)).toEqual(
      event?.message,
    );
  });

  it('returns nothing when an alert item is modified', () => {
    expect(
      channelEventOf(change('alerts', 'MODIFY', { oldItem: alertItem, newItem: alertItem }), context),
    ).toBeUndefined();
  });
});

describe('channelEventOf: breaks', () => {
  it('returns an alerts.simultaneous_breaks event routed by every symbol of the break', () => {
    const event = channelEventOf(change('breaks', 'INSERT', { newItem: breakItem }), context);

    expect(event).toEqual({
      eventId: 'ev-1',
      recordedAtMs: RECORDED_AT_MS,
      channel: 'alerts.simultaneous_breaks',
      symbols: ['ES1!', 'NQ1!', 'YM1!'],
      message: { channel: 'alerts.simultaneous_breaks', data: { id: 4, ...breakItem.body } },
    });
    expect(event?.message).not.toHaveProperty('symbol');
    expect(z.strictObject(pushSchemas['alerts.simultaneous_breaks'].shape).parse(event?.message)).toEqual(
      event?.message,
    );
  });

  it('returns nothing when a break item is modified', () => {
    expect(
      channelEventOf(change('breaks', 'MODIFY', { oldItem: breakItem, newItem: breakItem }), context),
    ).toBeUndefined();
  });
});

describe('channelEventOf: deletions', () => {
  it.each<[SourceChange['table'], Record<string, unknown>]>([
    ['states', state()],
    ['alerts', alertItem],
    ['breaks', breakItem],
  ])('returns nothing when a %s item is removed', (table, item) => {
    expect(channelEventOf(change(table, 'REMOVE', { oldItem: item }), context)).toBeUndefined();
  });
});
