import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SCOPES } from '#contracts/scopes';
import { CHANNEL_NAMES } from '#contracts/websocket';
import { checkTopic, subscriptionsReached } from '#domain/streaming/topics';

describe('subscriptionsReached', () => {
  it.each([
    ['quotes', ['AAPL'], [{ channel: 'quotes', symbol: 'AAPL' }]],
    ['states', ['AAPL'], [{ channel: 'states', symbol: 'AAPL' }]],
    [
      'alerts.in_force',
      ['AAPL'],
      [{ channel: 'alerts.in_force', symbol: 'AAPL' }, { channel: 'alerts.in_force' }],
    ],
    [
      'alerts.simultaneous_breaks',
      ['ES1!', 'NQ1!'],
      [
        { channel: 'alerts.simultaneous_breaks', symbol: 'ES1!' },
        { channel: 'alerts.simultaneous_breaks', symbol: 'NQ1!' },
        { channel: 'alerts.simultaneous_breaks' },
      ],
    ],
  ] as const)(
    'returns each symbol of a %s event, and the wildcard of an alert channel',
    (channel, symbols, reached) => {
      expect(subscriptionsReached(channel, symbols)).toEqual(reached);
    },
  );
});

describe('checkTopic', () => {
  it('returns distinct upper-cased symbols, each either subscribed or unknown, at most 250, for any symbol list', () => {
    const tracked = new Set(['AAPL', 'MSFT', 'ES1!']);
    fc.assert(
      fc.property(
        fc.constantFrom(...CHANNEL_NAMES),
        fc.array(fc.oneof(fc.constantFrom('aapl', 'MSFT', ' es1! ', 'nope', ''), fc.string()), {
          maxLength: 400,
        }),
        (channel, symbols) => {
          const outcome = checkTopic(
            { channel, symbols },
            { scopes: SCOPES, isTracked: (symbol) => tracked.has(symbol), purpose: 'subscribe' },
          );

          if (!outcome.ok) {
            expect(['missing_symbols', 'too_many_symbols', 'unknown_symbols']).toContain(outcome.code);
            return;
          }
          // Never an accepted topic with symbols given and none subscribed (it would read "every symbol").
          expect(
            (outcome.topic.unknown_symbols ?? []).length > 0 && outcome.topic.symbols?.length === 0,
          ).toBe(false);
          const known = outcome.topic.symbols ?? [];
          const unknown = outcome.topic.unknown_symbols ?? [];
          const all = [...known, ...unknown];
          expect(new Set(all).size).toBe(all.length);
          expect(all.length).toBeLessThanOrEqual(250);
          expect(all.every((symbol) => symbol === symbol.trim().toUpperCase() && symbol.length > 0)).toBe(
            true,
          );
          expect(known.every((symbol) => tracked.has(symbol))).toBe(true);
          expect(unknown.some((symbol) => tracked.has(symbol))).toBe(false);
          expect(outcome.subscriptions).toEqual(
            all.length === 0 ? [{ channel }] : known.map((symbol) => ({ channel, symbol })),
          );
        },
      ),
    );
  });
});
