import * as z from 'zod/mini';
import { CHANNEL_NAMES, type CloseCode } from '#contracts/websocket';
import { latestPricesSchema, priceItemSchema } from '#domain/market-data/prices';
import { inForceAlertSchema, simultaneousBreakSchema } from '#domain/strat/alerts';
import { stateSnapshotSchema } from '#domain/strat/state-snapshot';

/**
 * Every message of the WebSocket API (docs/websocket.md#operations,
 * docs/websocket.md#channels-and-pushed-messages), as zod schemas: the handlers build replies from them and
 * the AsyncAPI document is generated from them.
 */

/** Topics per subscribe or unsubscribe message: more than enough for the four channels. */
export const MAX_TOPICS_PER_MESSAGE = 20;
/** Raw entries in one topic's `symbols` before normalizing (at most 250 distinct are accepted). */
export const MAX_RAW_SYMBOLS_PER_TOPIC = 1000;

/** An optional client-chosen id, echoed in the reply so a client can match replies to requests. */
export const requestIdSchema = z.optional(z.union([z.string().check(z.maxLength(64)), z.number()]));

export const topicSchema = z.object({
  channel: z.string(),
  symbols: z.optional(z.array(z.string()).check(z.maxLength(MAX_RAW_SYMBOLS_PER_TOPIC))),
  /**
   * `quotes` only, opt-in: the topic's quotes come several to a frame, `quotesBatch`
   * (docs/websocket.md#batched-quotes). As the connection's last `subscribe` of a symbol said.
   */
  batch: z.optional(z.boolean()),
});

export type RawTopic = z.infer<typeof topicSchema>;

const topicsMessageFields = {
  id: requestIdSchema,
  topics: z.array(z.unknown()).check(z.minLength(1), z.maxLength(MAX_TOPICS_PER_MESSAGE)),
};

/** What a client may send. Unknown fields are ignored. */
export const clientMessageSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('subscribe'), ...topicsMessageFields }),
  z.object({ op: z.literal('unsubscribe'), ...topicsMessageFields }),
  z.object({ op: z.literal('ping'), id: requestIdSchema }),
]);

export type ClientMessage = z.infer<typeof clientMessageSchema>;

/** Documented client-message schemas, one per operation (AsyncAPI). */
const documentedTopics = z.array(topicSchema).check(z.minLength(1), z.maxLength(MAX_TOPICS_PER_MESSAGE));

export const clientOperationSchemas = {
  subscribe: z.object({ op: z.literal('subscribe'), id: requestIdSchema, topics: documentedTopics }),
  unsubscribe: z.object({ op: z.literal('unsubscribe'), id: requestIdSchema, topics: documentedTopics }),
  ping: z.object({ op: z.literal('ping'), id: requestIdSchema }),
};

export const WS_ERROR_CODES = [
  /** Not JSON, not an object with a known shape, or a topic that is not `{channel, symbols?}`. */
  'invalid_message',
  'unknown_op',
  'unknown_channel',
  'missing_scope',
  /** `quotes` and `states` need symbols. */
  'missing_symbols',
  'too_many_symbols',
  /** `subscribe` only: none of a topic's symbols is tracked; nothing is subscribed (docs/websocket.md#subscribe). */
  'unknown_symbols',
  /** More client messages than a connection may send in a window (docs/websocket.md#limits). */
  'rate_limit_exceeded',
  'internal_error',
] as const;

export type WsErrorCode = (typeof WS_ERROR_CODES)[number];

const channelSchema = z.enum(CHANNEL_NAMES);

/** A topic as it took effect: the symbols subscribed, and those not tracked (not subscribed). */
export const acceptedTopicSchema = z.object({
  channel: channelSchema,
  symbols: z.optional(z.array(z.string())),
  unknown_symbols: z.optional(z.array(z.string())),
  /** `subscribe` of `quotes` only: present, and true, when the topic's quotes come batched. */
  batch: z.optional(z.literal(true)),
});

export type AcceptedTopic = z.infer<typeof acceptedTopicSchema>;

export const replySchemas = {
  subscribed: z.object({
    op: z.literal('subscribed'),
    id: requestIdSchema,
    topics: z.array(acceptedTopicSchema),
  }),
  unsubscribed: z.object({
    op: z.literal('unsubscribed'),
    id: requestIdSchema,
    topics: z.array(z.omit(acceptedTopicSchema, { unknown_symbols: true, batch: true })),
  }),
  pong: z.object({ op: z.literal('pong'), id: requestIdSchema }),
  error: z.object({
    op: z.literal('error'),
    id: requestIdSchema,
    error: z.object({ code: z.enum(WS_ERROR_CODES), message: z.string() }),
    /** The topic the error is about, when it is about one; the message's other topics still apply. */
    topic: z.optional(z.object({ channel: z.string(), symbols: z.optional(z.array(z.string())) })),
  }),
  heartbeat: z.object({ op: z.literal('heartbeat') }),
  /** On AWS only: sent just before the server ends the connection, since it cannot send a close code. */
  close: z.object({ op: z.literal('close'), code: z.int(), reason: z.string() }),
};

export type ServerReply = {
  [Op in keyof typeof replySchemas]: z.infer<(typeof replySchemas)[Op]>;
}[keyof typeof replySchemas];

/**
 * Pushed events: `{channel, symbol?, data}` with `data` in its REST shape
 * (docs/websocket.md#channels-and-pushed-messages).
 */
export const pushSchemas = {
  quotes: z.object({ channel: z.literal('quotes'), symbol: z.string(), data: priceItemSchema }),
  states: z.object({ channel: z.literal('states'), symbol: z.string(), data: stateSnapshotSchema }),
  'alerts.in_force': z.object({
    channel: z.literal('alerts.in_force'),
    symbol: z.string(),
    data: inForceAlertSchema,
  }),
  'alerts.simultaneous_breaks': z.object({
    channel: z.literal('alerts.simultaneous_breaks'),
    data: simultaneousBreakSchema,
  }),
};

export type PushMessage = {
  [Channel in keyof typeof pushSchemas]: z.infer<(typeof pushSchemas)[Channel]>;
}[keyof typeof pushSchemas];

/**
 * The quotes of one ingest round for one connection, in one frame: for the `quotes` topics subscribed with
 * `"batch": true` (docs/websocket.md#batched-quotes). `data` is the REST shape of `/prices/latest`, its items
 * in commit order (a symbol at most once per frame). Each quote in it is still one pushed event, one usage row.
 */
export const quotesBatchSchema = z.object({ channel: z.literal('quotes'), data: latestPricesSchema });

export type QuotesBatch = z.infer<typeof quotesBatchSchema>;

/** The batched frame of some `quotes` pushes, in their order (pushes of other channels have no place in it). */
export function quotesBatchOf(pushes: readonly PushMessage[]): QuotesBatch {
  return {
    channel: 'quotes',
    data: { items: pushes.flatMap((push) => (push.channel === 'quotes' ? [push.data] : [])) },
  };
}

export const HEARTBEAT_MESSAGE = { op: 'heartbeat' } as const satisfies ServerReply;

/**
 * A server message as it goes on the wire, serialized once: the fan-out posts one frame per event to every
 * connection the event reaches (docs/architecture.md#fan-out-dynamodb-streams-to-the-connections), the
 * heartbeat one per round, so the JSON and its UTF-8 bytes are made once, not once per connection.
 */
export class Frame {
  private encoded: Uint8Array | undefined;

  constructor(readonly json: string) {}

  /** The UTF-8 bytes, encoded on first use and kept. */
  get bytes(): Uint8Array {
    this.encoded ??= new TextEncoder().encode(this.json);
    return this.encoded;
  }
}

export function frameOf(message: ServerReply | PushMessage | QuotesBatch): Frame {
  return new Frame(JSON.stringify(message));
}

export function closeMessage(code: CloseCode, reason: string): ServerReply {
  return { op: 'close', code, reason };
}

export function errorReply(
  code: WsErrorCode,
  message: string,
  context: { id?: string | number; topic?: { channel: string; symbols?: string[] } } = {},
): ServerReply {
  return {
    op: 'error',
    ...(context.id === undefined ? {} : { id: context.id }),
    error: { code, message },
    ...(context.topic ? { topic: context.topic } : {}),
  };
}
