import { defaultMessage } from '#contracts/errors';
import { CLIENT_MESSAGE_RATE, CLOSE_CODES, type CloseCode } from '#contracts/websocket';
import type { CredentialLookup } from '#domain/access/ports';
import { closeCodeFor } from '#domain/streaming/access';
import { type MessageCounts, type MessageVerdict, verdictFor } from '#domain/streaming/message-allowance';
import {
  type AcceptedTopic,
  type ClientMessage,
  clientMessageSchema,
  errorReply,
  requestIdSchema,
  type ServerReply,
} from '#domain/streaming/messages';
import type {
  ClientConnections,
  ConnectionRecord,
  ConnectionStore,
  MessageRateLimiter,
  Subscription,
  SubscriptionStore,
} from '#domain/streaming/ports';
import { checkTopic, topicKey } from '#domain/streaming/topics';

export interface SessionPorts {
  readonly connections: ConnectionStore;
  readonly subscriptions: SubscriptionStore;
  readonly clients: ClientConnections;
}

/**
 * `$connect`, already authorized: the connection becomes its account's one connection, and the one it
 * replaces is closed with 4409 (docs/websocket.md#one-connection-per-account,
 * docs/architecture.md#websocket-api-gateway-websocket-api-with-mapped-close-codes). Two racing connects: the
 * later claim replaces the earlier, so exactly one stays. Returns the connection it replaced, if any.
 */
export async function openConnection(
  connection: ConnectionRecord,
  ports: Pick<SessionPorts, 'connections' | 'clients'>,
): Promise<ConnectionRecord | undefined> {
  const replaced = await ports.connections.claim(connection);
  if (!replaced) return undefined;
  // Its subscriptions go with its $disconnect; if that never comes, the fan-out removes them at the first
  // push it finds the connection gone, and their TTL in any case: `$connect` writes no subscription.
  await ports.clients.close(replaced.connectionId, CLOSE_CODES.replaced);
  return replaced;
}

/**
 * `$disconnect` (or a connection found gone): its subscriptions go, and the account's row goes only while
 * it still names this connection, so an evicted connection's disconnect never removes its successor.
 */
export async function closeConnection(
  connection: { readonly accountId: string; readonly connectionId: string },
  ports: Pick<SessionPorts, 'connections' | 'subscriptions'>,
): Promise<void> {
  const subscriptions = await ports.subscriptions.listOf(connection.connectionId);
  await Promise.all([
    ports.connections.release(connection.accountId, connection.connectionId),
    ports.subscriptions.remove(connection.connectionId, subscriptions),
  ]);
}

/** Whether a connection may stay open, from its key read now: see closeCodeFor. */
export async function closeCodeIfAccessWithdrawn(
  connection: Pick<ConnectionRecord, 'keyId'>,
  lookupCredential: CredentialLookup,
): Promise<CloseCode | undefined> {
  return closeCodeFor(await lookupCredential(connection.keyId));
}

/** The message's `id`, when it is one the schema allows (echoed, so an error reply is itself well-formed). */
function echoOf(json: unknown): { id?: string | number } {
  const id = (json as { id?: unknown } | null)?.id;
  return requestIdSchema.safeParse(id).success && id !== undefined ? { id: id as string | number } : {};
}

function echoedId(body: string | null | undefined): { id?: string | number } {
  try {
    return echoOf(JSON.parse(body ?? ''));
  } catch {
    return {};
  }
}

function parseClientMessage(body: string | null | undefined): ClientMessage | ServerReply {
  let json: unknown;
  try {
    json = JSON.parse(body ?? '');
  } catch {
    return errorReply('invalid_message', 'the message is not JSON');
  }
  const op = (json as { op?: unknown } | null)?.op;
  const echo = echoOf(json);
  if (op !== 'subscribe' && op !== 'unsubscribe' && op !== 'ping') {
    return typeof op === 'string'
      ? errorReply('unknown_op', `unknown op: ${op.slice(0, 64)}`, echo)
      : errorReply('invalid_message', 'a message needs an "op"', echo);
  }
  const parsed = clientMessageSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') || 'message';
    return errorReply('invalid_message', `${where}: ${issue?.message ?? 'invalid'}`, echo);
  }
  return parsed.data;
}

const isReply = (message: ClientMessage | ServerReply): message is ServerReply =>
  (message as ServerReply).op === 'error';

/** The refusal of a message over the allowance: answered, silent, or the connection closed with 4429. */
async function refusal(
  verdict: Exclude<MessageVerdict, 'admit'>,
  connectionId: string,
  body: string | null | undefined,
  clients: ClientConnections,
): Promise<ServerReply[]> {
  if (verdict === 'close') {
    await clients.close(connectionId, CLOSE_CODES.messageRateExceeded);
    return [];
  }
  if (verdict === 'ignore') return [];
  const { messages, windowSeconds } = CLIENT_MESSAGE_RATE;
  return [
    errorReply(
      'rate_limit_exceeded',
      `at most ${messages} messages per ${windowSeconds} seconds per connection`,
      echoedId(body),
    ),
  ];
}

/**
 * The free check before any read or write (docs/websocket.md#limits): the connection's messages counted in
 * this function instance's memory. Over the allowance there, the message is refused as its count says
 * (answered, silent, or the connection closed with 4429) and these replies are its only answer; undefined:
 * go on to {@link handleClientMessage}.
 */
export async function screenClientMessage(
  connectionId: string,
  body: string | null | undefined,
  ports: {
    readonly messageCounts: MessageCounts;
    readonly clients: ClientConnections;
    readonly nowMs: () => number;
  },
): Promise<ServerReply[] | undefined> {
  const verdict = verdictFor(ports.messageCounts.count(connectionId, ports.nowMs()));
  return verdict === 'admit' ? undefined : refusal(verdict, connectionId, body, ports.clients);
}

/**
 * One client message (`$default`), answered with replies in order: one `error` per refused topic, then
 * `subscribed` / `unsubscribed` listing what took effect (possibly nothing), or `pong`. An error never
 * closes the connection. A message over the connection's allowance (CLIENT_MESSAGE_RATE, counted across
 * instances in storage) is answered `rate_limit_exceeded` and not read further, past a few refusals not
 * answered, and far past it closes the connection with 4429. A connection that is no longer its account's
 * one (it lost a connect race) is closed with 4409 instead.
 */
export async function handleClientMessage(
  connection: ConnectionRecord,
  body: string | null | undefined,
  ports: SessionPorts & {
    readonly trackedSymbols: () => Promise<{ has(symbol: string): boolean }>;
    readonly messageRate: MessageRateLimiter;
    readonly nowMs: () => number;
  },
): Promise<ServerReply[]> {
  const verdict = verdictFor(await ports.messageRate.count(connection.connectionId, ports.nowMs()));
  if (verdict !== 'admit') return refusal(verdict, connection.connectionId, body, ports.clients);
  const current = await ports.connections.get(connection.accountId);
  if (current?.connectionId !== connection.connectionId) {
    await ports.clients.close(connection.connectionId, CLOSE_CODES.replaced);
    return [];
  }
  const message = parseClientMessage(body);
  if (isReply(message)) return [message];
  const echo = message.id === undefined ? {} : { id: message.id };
  if (message.op === 'ping') return [{ op: 'pong', ...echo }];

  const tracked = await ports.trackedSymbols();
  const replies: ServerReply[] = [];
  const topics: AcceptedTopic[] = [];
  const subscriptions: Subscription[] = [];
  for (const raw of message.topics) {
    const outcome = checkTopic(raw, {
      scopes: connection.scopes,
      isTracked: (symbol) => tracked.has(symbol),
      purpose: message.op,
    });
    if (outcome.ok) {
      topics.push(outcome.topic);
      subscriptions.push(...outcome.subscriptions);
    } else {
      // The refused topic is named; a list of too many symbols is not repeated back.
      const topic =
        outcome.topic && outcome.code === 'too_many_symbols'
          ? { channel: outcome.topic.channel }
          : outcome.topic;
      replies.push(errorReply(outcome.code, defaultMessage(outcome.code), { ...echo, topic }));
    }
  }

  if (message.op === 'subscribe') {
    // Only what is new or changed (batched or not) is written: subscribing again to what a connection has
    // costs one read, not a write per symbol.
    const existing = new Map(
      (await ports.subscriptions.listOf(connection.connectionId)).map((s) => [topicKey(s), s.batch === true]),
    );
    const added = subscriptions.filter((s) => existing.get(topicKey(s)) !== (s.batch === true));
    if (added.length > 0) await ports.subscriptions.add(connection, added);
    replies.push({ op: 'subscribed', ...echo, topics });
  } else {
    await ports.subscriptions.remove(connection.connectionId, await withWholeChannels(subscriptions));
    replies.push({ op: 'unsubscribed', ...echo, topics });
  }
  return replies;

  /** Unsubscribing a channel without symbols removes every subscription of that channel. */
  async function withWholeChannels(requested: Subscription[]): Promise<Subscription[]> {
    const channels = new Set(requested.filter((s) => s.symbol === undefined).map((s) => s.channel));
    if (channels.size === 0) return requested;
    const existing = await ports.subscriptions.listOf(connection.connectionId);
    return [...requested, ...existing.filter((s) => channels.has(s.channel))];
  }
}
