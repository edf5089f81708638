import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import type { LatestPrice } from '#domain/market-data/bars';
import type { SetupRow } from '#domain/strat/setups';
import { type ChangeContext, channelEventOf, type SourceChange } from '#domain/streaming/channel-events';
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

/** A ledger item as the ledger store writes it: the encoded ledger, and its latest price as a plain map. */
const ledgerItem = (price: number, overrides: Record<string, unknown> = {}) => ({
  symbol: 'AAPL',
  version: 7,
  data: new Uint8Array([1, 2, 3]),
  price: { price, volume: 100, timestamp: Date.parse('2024-11-26T15:29:59Z'), tradeId: `t-${price}` },
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

describe('channelEventOf: ledgers (quotes)', () => {
  it.each(['INSERT', 'MODIFY'] as const)(
    'returns a quotes event with the price item when a ledger commit moves the price (%s)',
    (kind) => {
      const event = channelEventOf(
        change('ledgers', kind, {
          newItem: ledgerItem(190.5),
          oldItem: kind === 'MODIFY' ? ledgerItem(190, { version: 6 }) : undefined,
        }),
        context,
      );

      expect(event).toEqual({
        eventId: 'ev-1',
        recordedAtMs: RECORDED_AT_MS,
        tradedAtMs: Date.parse('2024-11-26T15:29:59Z'),
        channel: 'quotes',
        symbols: ['AAPL'],
        message: { channel: 'quotes', symbol: 'AAPL', data: { symbol: 'AAPL', price: 190.5, volume: 100 } },
      });
      expect(z.strictObject(pushSchemas.quotes.shape).parse(event?.message)).toEqual(event?.message);
    },
  );
});

describe('channelEventOf: ledgers that push no quote', () => {
  const moved = (price: Record<string, unknown>) => ({ ...ledgerItem(190).price, ...price });

  it('pushes nothing when the commit left the price as it was (the clock tick closing bars)', () => {
    const event = channelEventOf(
      change('ledgers', 'MODIFY', { oldItem: ledgerItem(190, { version: 6 }), newItem: ledgerItem(190) }),
      context,
    );

    expect(event).toBeUndefined();
  });

  it.each([
    ['the size of the last trade', { volume: 5 }],
    ['the trade behind it, at the same price', { tradeId: 't-other' }],
    ['its time', { timestamp: Date.parse('2024-11-26T15:30:00Z') }],
  ])('pushes a quote when only %s changed', (_case, change_) => {
    const event = channelEventOf(
      change('ledgers', 'MODIFY', {
        oldItem: ledgerItem(190),
        newItem: ledgerItem(190, { price: moved(change_) }),
      }),
      context,
    );

    expect(event?.channel).toBe('quotes');
  });

  it.each([
    ['a recent-bar snapshot', { symbol: 'AAPL#recent#7#abc', data: new Uint8Array([1]) }],
    ['a ledger that has no price yet', { symbol: 'AAPL', version: 0, data: new Uint8Array([1]) }],
  ])('pushes nothing for %s', (_case, item) => {
    expect(channelEventOf(change('ledgers', 'INSERT', { newItem: item }), context)).toBeUndefined();
  });

  it('pushes the price of a ledger written before the price had its own attribute once, at its next commit', () => {
    const legacy = { symbol: 'AAPL', version: 6, data: new Uint8Array([1]) };

    const event = channelEventOf(
      change('ledgers', 'MODIFY', { oldItem: legacy, newItem: ledgerItem(190) }),
      context,
    );

    expect(event?.message).toEqual({
      channel: 'quotes',
      symbol: 'AAPL',
      data: { symbol: 'AAPL', price: 190, volume: 100 },
    });
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
    ['ledgers', ledgerItem(190)],
    ['states', state()],
    ['alerts', alertItem],
    ['breaks', breakItem],
  ])('returns nothing when a %s item is removed', (table, item) => {
    expect(channelEventOf(change(table, 'REMOVE', { oldItem: item }), context)).toBeUndefined();
  });
});
