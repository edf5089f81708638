import type { Scope } from '#contracts/scopes';
import { CHANNEL_NAMES, CHANNELS, type ChannelName } from '#contracts/websocket';
import { isWellFormedSymbol, normalizeSymbol } from '#domain/market-data/symbols';
import { MAX_SYMBOLS_PER_REQUEST } from '#domain/requests/limits';
import { type AcceptedTopic, type RawTopic, topicSchema, type WsErrorCode } from './messages.ts';
import type { Subscription } from './ports.ts';

/** A topic checked against the channel table, the key's scopes and the tracked universe. */
export type TopicOutcome =
  | { readonly ok: true; readonly topic: AcceptedTopic; readonly subscriptions: Subscription[] }
  | { readonly ok: false; readonly code: WsErrorCode; readonly topic?: RawTopic };

export function isChannelName(value: string): value is ChannelName {
  return (CHANNEL_NAMES as readonly string[]).includes(value);
}

/**
 * A topic's symbols: upper-cased and de-duplicated in the client's order. An empty list is the same as
 * none (ADR 0005). `undefined` when there are more than 250 distinct: a topic is refused, not cut.
 */
function normalizedSymbols(raw: readonly string[] | undefined): string[] | undefined {
  const symbols = new Set<string>();
  for (const entry of raw ?? []) {
    const symbol = normalizeSymbol(entry);
    if (symbol.length > 0) symbols.add(symbol);
  }
  return symbols.size > MAX_SYMBOLS_PER_REQUEST ? undefined : [...symbols];
}

/**
 * One topic of a subscribe or unsubscribe message (docs/websocket.md#subscribe): a known channel, the
 * channel's scope (subscribe only: unsubscribing never reveals data), at most 250 symbols, symbols required
 * on `quotes` and `states`; symbols not tracked are reported back, not subscribed, and a topic with none
 * tracked is refused (`unknown_symbols`). `"batch": true` is for `quotes` only (`invalid_message` on another
 * channel); it is kept on each subscription and echoed in the accepted topic.
 */
export function checkTopic(
  raw: unknown,
  context: {
    readonly scopes: readonly Scope[];
    readonly isTracked: (symbol: string) => boolean;
    readonly purpose: 'subscribe' | 'unsubscribe';
  },
): TopicOutcome {
  const parsed = topicSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, code: 'invalid_message' };
  const topic = parsed.data;
  if (!isChannelName(topic.channel)) return { ok: false, code: 'unknown_channel', topic };
  const channel = topic.channel;
  const definition = CHANNELS[channel];
  // Only quotes come batched; asking it of another channel is refused rather than silently ignored.
  if (topic.batch === true && channel !== 'quotes') return { ok: false, code: 'invalid_message', topic };
  if (context.purpose === 'subscribe' && !context.scopes.includes(definition.scope)) {
    return { ok: false, code: 'missing_scope', topic };
  }
  const symbols = normalizedSymbols(topic.symbols);
  if (symbols === undefined) return { ok: false, code: 'too_many_symbols', topic };

  if (symbols.length === 0) {
    if (definition.symbols === 'required' && context.purpose === 'subscribe') {
      return { ok: false, code: 'missing_symbols', topic };
    }
    // Every symbol: an alert channel's wildcard, or (unsubscribing) the whole channel.
    return { ok: true, topic: { channel }, subscriptions: [{ channel }] };
  }
  // Only tracked symbols can have been subscribed: anything else (`*` included) removes nothing.
  const known = symbols.filter((symbol) => isWellFormedSymbol(symbol) && context.isTracked(symbol));
  if (context.purpose === 'unsubscribe') {
    return {
      ok: true,
      topic: { channel, symbols: known },
      subscriptions: known.map((symbol) => ({ channel, symbol })),
    };
  }
  // None tracked: refused, never answered `"symbols": []`, which on an alert channel reads "every symbol".
  if (known.length === 0) return { ok: false, code: 'unknown_symbols', topic };
  const unknown = symbols.filter((symbol) => !known.includes(symbol));
  const batch = topic.batch === true ? ({ batch: true } as const) : {};
  return {
    ok: true,
    topic: { channel, symbols: known, unknown_symbols: unknown, ...batch },
    subscriptions: known.map((symbol) => ({ channel, symbol, ...batch })),
  };
}

const WILDCARD = '*';

/** A subscription's topic: `<channel>#<symbol>`, or `<channel>#*` for every symbol of an alert channel. */
export function topicKey({ channel, symbol }: Subscription): string {
  return `${channel}#${symbol ?? WILDCARD}`;
}

/** The subscription a topic names (the inverse of `topicKey`). */
export function subscriptionOfTopic(topic: string): Subscription {
  const separator = topic.indexOf('#');
  const channel = topic.slice(0, separator) as ChannelName;
  const symbol = topic.slice(separator + 1);
  return symbol === WILDCARD ? { channel } : { channel, symbol };
}

/** The subscriptions an event reaches: each of its symbols, and the channel's wildcard if it has one. */
export function subscriptionsReached(channel: ChannelName, symbols: readonly string[]): Subscription[] {
  const reached: Subscription[] = symbols.map((symbol) => ({ channel, symbol }));
  if (CHANNELS[channel].symbols === 'optional') reached.push({ channel });
  return reached;
}
