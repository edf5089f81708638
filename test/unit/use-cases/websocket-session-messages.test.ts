import { describe, expect, it, vi } from 'vitest';
import { defaultMessage } from '#contracts/errors';
import { SCOPES, type Scope } from '#contracts/scopes';
import { CHANNEL_NAMES, CHANNELS, CLIENT_MESSAGE_RATE, CLOSE_CODES } from '#contracts/websocket';
import {
  errorReply,
  MAX_RAW_SYMBOLS_PER_TOPIC,
  MAX_TOPICS_PER_MESSAGE,
  replySchemas,
  type ServerReply,
} from '#domain/streaming/messages';
import { handleClientMessage, openConnection, screenClientMessage } from '#use-cases/websocket-session';
import { connectionRecord, inMemorySessionPorts } from '../../support/websocket-fakes.ts';

const MANY = Array.from({ length: 300 }, (_, index) => `S${index}`);
const TRACKED = new Set(['AAPL', 'MSFT', 'TSLA', 'ES1!', 'NQ1!', ...MANY]);

/** An open connection of account `acme` with `scopes`, and a way to send it client messages. */
async function session(scopes: readonly Scope[] = SCOPES) {
  const ports = inMemorySessionPorts();
  const connection = connectionRecord({ scopes });
  await openConnection(connection, ports);
  const send = (message: unknown) =>
    handleClientMessage(connection, typeof message === 'string' ? message : JSON.stringify(message), {
      ...ports,
      trackedSymbols: async () => TRACKED,
    });
  const topics = () => ports.subscriptions.topicsOf(connection.connectionId);
  return { ports, connection, send, topics };
}

const error = (code: Parameters<typeof errorReply>[0], context: Parameters<typeof errorReply>[2] = {}) =>
  errorReply(code, defaultMessage(code), context);

describe('handleClientMessage: subscribe', () => {
  it('returns subscribed with upper-cased, de-duplicated symbols in the client order when symbols repeat', async () => {
    const { send, topics } = await session();

    const replies = await send({
      op: 'subscribe',
      topics: [{ channel: 'quotes', symbols: ['msft', ' aapl ', 'MSFT', 'Aapl'] }],
    });

    expect(replies).toEqual([
      { op: 'subscribed', topics: [{ channel: 'quotes', symbols: ['MSFT', 'AAPL'], unknown_symbols: [] }] },
    ]);
    expect(topics()).toEqual(['quotes#AAPL', 'quotes#MSFT']);
  });

  it('writes only the subscriptions a connection does not have yet, and still replies with every topic', async () => {
    const { ports, send, topics } = await session();
    await send({ op: 'subscribe', topics: [{ channel: 'quotes', symbols: ['AAPL', 'MSFT'] }] });
    const add = vi.spyOn(ports.subscriptions, 'add');

    const again = await send({ op: 'subscribe', topics: [{ channel: 'quotes', symbols: ['AAPL', 'MSFT'] }] });
    const more = await send({ op: 'subscribe', topics: [{ channel: 'quotes', symbols: ['MSFT', 'TSLA'] }] });

    expect(again).toEqual([
      { op: 'subscribed', topics: [{ channel: 'quotes', symbols: ['AAPL', 'MSFT'], unknown_symbols: [] }] },
    ]);
    expect(more).toEqual([
      { op: 'subscribed', topics: [{ channel: 'quotes', symbols: ['MSFT', 'TSLA'], unknown_symbols: [] }] },
    ]);
    expect(add.mock.calls.map(([, subscriptions]) => subscriptions)).toEqual([
      [{ channel: 'quotes', symbol: 'TSLA' }],
    ]);
    expect(topics()).toEqual(['quotes#AAPL', 'quotes#MSFT', 'quotes#TSLA']);
  });

  it('reports untracked symbols in unknown_symbols and does not subscribe them', async () => {
    const { send, topics } = await session();

    const replies = await send({
      op: 'subscribe',
      topics: [{ channel: 'states', symbols: ['aapl', 'nope', 'X'.repeat(40)] }],
    });

    expect(replies).toEqual([
      {
        op: 'subscribed',
        topics: [{ channel: 'states', symbols: ['AAPL'], unknown_symbols: ['NOPE', 'X'.repeat(40)] }],
      },
    ]);
    expect(topics()).toEqual(['states#AAPL']);
  });

  it.each([
    ['without symbols', {}],
    ['with symbols: []', { symbols: [] }],
  ])('subscribes every symbol (the wildcard) of an alert channel %s', async (_case, symbols) => {
    const { send, topics } = await session();

    const replies = await send({
      op: 'subscribe',
      topics: [
        { channel: 'alerts.in_force', ...symbols },
        { channel: 'alerts.simultaneous_breaks', ...symbols },
      ],
    });

    expect(replies).toEqual([
      {
        op: 'subscribed',
        topics: [{ channel: 'alerts.in_force' }, { channel: 'alerts.simultaneous_breaks' }],
      },
    ]);
    expect(topics()).toEqual(['alerts.in_force#*', 'alerts.simultaneous_breaks#*']);
  });

  it('does not echo an id the schema refuses, so the error reply stays well-formed', async () => {
    const { send } = await session();

    const replies = await send({ op: 'ping', id: 'x'.repeat(65) });

    expect(replies).toEqual([
      { op: 'error', error: { code: 'invalid_message', message: expect.stringContaining('id') } },
    ]);
  });

  it('subscribes an alert channel to named symbols when symbols are given', async () => {
    const { send, topics } = await session();

    await send({ op: 'subscribe', topics: [{ channel: 'alerts.simultaneous_breaks', symbols: ['es1!'] }] });

    expect(topics()).toEqual(['alerts.simultaneous_breaks#ES1!']);
  });

  it('echoes a string or number id in the reply', async () => {
    const { send } = await session();

    const [byString] = await send({ op: 'subscribe', id: 'req-1', topics: [{ channel: 'alerts.in_force' }] });
    const [byNumber] = await send({ op: 'subscribe', id: 42, topics: [{ channel: 'alerts.in_force' }] });

    expect(byString).toMatchObject({ op: 'subscribed', id: 'req-1' });
    expect(byNumber).toMatchObject({ op: 'subscribed', id: 42 });
  });

  it('returns replies that match the documented reply schema', async () => {
    const { send } = await session();

    const [reply] = await send({
      op: 'subscribe',
      id: 1,
      topics: [{ channel: 'quotes', symbols: ['AAPL', 'NOPE'] }],
    });

    expect(replySchemas.subscribed.parse(reply)).toEqual(reply);
  });
});

describe('handleClientMessage: unsubscribe', () => {
  it('returns unsubscribed and removes the named symbols only', async () => {
    const { send, topics } = await session();
    await send({ op: 'subscribe', topics: [{ channel: 'quotes', symbols: ['AAPL', 'MSFT', 'TSLA'] }] });

    const replies = await send({
      op: 'unsubscribe',
      id: 'u1',
      topics: [{ channel: 'quotes', symbols: ['aapl', 'tsla', 'AAPL'] }],
    });

    expect(replies).toEqual([
      { op: 'unsubscribed', id: 'u1', topics: [{ channel: 'quotes', symbols: ['AAPL', 'TSLA'] }] },
    ]);
    expect(topics()).toEqual(['quotes#MSFT']);
  });

  it('removes every subscription of a channel, wildcard included, when the topic has no symbols', async () => {
    const { send, topics } = await session();
    await send({
      op: 'subscribe',
      topics: [
        { channel: 'alerts.in_force' },
        { channel: 'alerts.in_force', symbols: ['AAPL', 'MSFT'] },
        { channel: 'quotes', symbols: ['AAPL'] },
      ],
    });
    expect(topics()).toEqual([
      'alerts.in_force#*',
      'alerts.in_force#AAPL',
      'alerts.in_force#MSFT',
      'quotes#AAPL',
    ]);

    const replies = await send({ op: 'unsubscribe', topics: [{ channel: 'alerts.in_force' }] });

    expect(replies).toEqual([{ op: 'unsubscribed', topics: [{ channel: 'alerts.in_force' }] }]);
    expect(topics()).toEqual(['quotes#AAPL']);
  });

  it('removes every quotes subscription when quotes is unsubscribed with symbols: []', async () => {
    const { send, topics } = await session();
    await send({ op: 'subscribe', topics: [{ channel: 'quotes', symbols: ['AAPL', 'MSFT'] }] });

    const replies = await send({ op: 'unsubscribe', topics: [{ channel: 'quotes', symbols: [] }] });

    expect(replies).toEqual([{ op: 'unsubscribed', topics: [{ channel: 'quotes' }] }]);
    expect(topics()).toEqual([]);
  });

  it('unsubscribes without the channel scope (unsubscribing reveals no data)', async () => {
    const { send, topics, ports, connection } = await session(['ws:connect']);
    await ports.subscriptions.add(connection, [{ channel: 'quotes', symbol: 'AAPL' }]);

    const replies = await send({ op: 'unsubscribe', topics: [{ channel: 'quotes', symbols: ['AAPL'] }] });

    expect(replies).toEqual([{ op: 'unsubscribed', topics: [{ channel: 'quotes', symbols: ['AAPL'] }] }]);
    expect(topics()).toEqual([]);
  });
});

describe('handleClientMessage: ping', () => {
  it('returns pong with the id echoed', async () => {
    const { send } = await session();

    expect(await send({ op: 'ping', id: 'p-7' })).toEqual([{ op: 'pong', id: 'p-7' }]);
    expect(await send({ op: 'ping' })).toEqual([{ op: 'pong' }]);
  });
});

describe('handleClientMessage: errors', () => {
  it.each(['not json', '{"op":', '', '[1,'])(
    'returns invalid_message when the body %j is not JSON',
    async (body) => {
      const { send } = await session();

      expect(await send(body)).toEqual([
        { op: 'error', error: { code: 'invalid_message', message: 'the message is not JSON' } },
      ]);
    },
  );

  it.each<[string, unknown]>([
    ['an object without op', { id: 'x1', topics: [] }],
    ['a non-string op', { id: 'x1', op: 7 }],
  ])('returns invalid_message with the id echoed for %s', async (_case, message) => {
    const { send } = await session();

    expect(await send(message)).toEqual([
      { op: 'error', id: 'x1', error: { code: 'invalid_message', message: 'a message needs an "op"' } },
    ]);
  });

  it.each(['null', '42', '"subscribe"'])(
    'returns invalid_message when the JSON %s is not an object',
    async (body) => {
      const { send } = await session();

      const replies = await send(body);

      expect(replies).toEqual([
        { op: 'error', error: { code: 'invalid_message', message: 'a message needs an "op"' } },
      ]);
    },
  );

  it('returns unknown_op naming the op when the op is not subscribe, unsubscribe or ping', async () => {
    const { send } = await session();

    expect(await send({ op: 'dance', id: 3 })).toEqual([
      { op: 'error', id: 3, error: { code: 'unknown_op', message: 'unknown op: dance' } },
    ]);
  });

  it('returns unknown_channel with the topic and still subscribes the other topics', async () => {
    const { send, topics } = await session();

    const replies = await send({
      op: 'subscribe',
      id: 5,
      topics: [
        { channel: 'quotes', symbols: ['AAPL'] },
        { channel: 'news', symbols: ['aapl'] },
      ],
    });

    expect(replies).toEqual([
      error('unknown_channel', { id: 5, topic: { channel: 'news', symbols: ['aapl'] } }),
      { op: 'subscribed', id: 5, topics: [{ channel: 'quotes', symbols: ['AAPL'], unknown_symbols: [] }] },
    ]);
    expect(topics()).toEqual(['quotes#AAPL']);
  });

  it.each(CHANNEL_NAMES)(
    'returns missing_scope for %s without its scope while the other topics still subscribe',
    async (channel) => {
      const scope = CHANNELS[channel].scope;
      const other = scope === 'prices:read' ? 'states' : 'quotes';
      const { send, topics } = await session(SCOPES.filter((held) => held !== scope));

      const replies = await send({
        op: 'subscribe',
        id: 'm',
        topics: [
          { channel, symbols: ['AAPL'] },
          { channel: other, symbols: ['MSFT'] },
        ],
      });

      expect(replies).toEqual([
        error('missing_scope', { id: 'm', topic: { channel, symbols: ['AAPL'] } }),
        { op: 'subscribed', id: 'm', topics: [{ channel: other, symbols: ['MSFT'], unknown_symbols: [] }] },
      ]);
      expect(topics()).toEqual([`${other}#MSFT`]);
    },
  );

  it('returns missing_scope for a wildcard alert topic without alerts:read', async () => {
    const { send, topics } = await session(['ws:connect', 'prices:read']);

    const replies = await send({ op: 'subscribe', topics: [{ channel: 'alerts.in_force' }] });

    expect(replies).toEqual([
      error('missing_scope', { topic: { channel: 'alerts.in_force' } }),
      { op: 'subscribed', topics: [] },
    ]);
    expect(topics()).toEqual([]);
  });

  it('returns too_many_symbols when a topic names 251 distinct symbols, and subscribes none of them', async () => {
    const { send, topics } = await session();
    const symbols = MANY.slice(0, 251);

    const replies = await send({ op: 'subscribe', topics: [{ channel: 'quotes', symbols }] });

    expect(replies).toEqual([
      error('too_many_symbols', { topic: { channel: 'quotes' } }),
      { op: 'subscribed', topics: [] },
    ]);
    expect(topics()).toEqual([]);
  });

  it('subscribes 250 distinct symbols', async () => {
    const { send, topics } = await session();
    const symbols = MANY.slice(0, 250);

    const [reply] = await send({ op: 'subscribe', topics: [{ channel: 'quotes', symbols }] });

    expect(reply).toEqual({
      op: 'subscribed',
      topics: [{ channel: 'quotes', symbols, unknown_symbols: [] }],
    });
    expect(topics()).toHaveLength(250);
  });

  it('subscribes 300 raw entries that are 250 distinct symbols after upper-casing', async () => {
    const { send, topics } = await session();
    const distinct = MANY.slice(0, 250);
    const raw = [...distinct.map((symbol) => symbol.toLowerCase()), ...distinct.slice(0, 50)];

    const [reply] = await send({ op: 'subscribe', topics: [{ channel: 'states', symbols: raw }] });

    expect(raw).toHaveLength(300);
    expect(reply).toEqual({
      op: 'subscribed',
      topics: [{ channel: 'states', symbols: distinct, unknown_symbols: [] }],
    });
    expect(topics()).toHaveLength(250);
  });

  it.each(['quotes', 'states'])(
    'returns missing_symbols when %s is subscribed without symbols',
    async (channel) => {
      const { send, topics } = await session();

      const replies = await send({
        op: 'subscribe',
        topics: [{ channel }, { channel, symbols: [] }, { channel, symbols: ['  '] }],
      });

      expect(replies).toEqual([
        error('missing_symbols', { topic: { channel } }),
        error('missing_symbols', { topic: { channel, symbols: [] } }),
        error('missing_symbols', { topic: { channel, symbols: ['  '] } }),
        { op: 'subscribed', topics: [] },
      ]);
      expect(topics()).toEqual([]);
    },
  );

  it('returns invalid_message for a topic that is not {channel, symbols?} and still subscribes the others', async () => {
    const { send, topics } = await session();

    const replies = await send({
      op: 'subscribe',
      topics: ['quotes', { channel: 'quotes', symbols: 'AAPL' }, { channel: 'quotes', symbols: ['MSFT'] }],
    });

    expect(replies).toEqual([
      error('invalid_message'),
      error('invalid_message'),
      { op: 'subscribed', topics: [{ channel: 'quotes', symbols: ['MSFT'], unknown_symbols: [] }] },
    ]);
    expect(topics()).toEqual(['quotes#MSFT']);
  });

  it('returns invalid_message without a topic when a topic has more than 1000 raw symbols', async () => {
    const { send, topics } = await session();
    const symbols = Array.from({ length: MAX_RAW_SYMBOLS_PER_TOPIC + 1 }, () => 'AAPL');

    const replies = await send({ op: 'subscribe', topics: [{ channel: 'quotes', symbols }] });

    expect(replies).toEqual([error('invalid_message'), { op: 'subscribed', topics: [] }]);
    expect(topics()).toEqual([]);
  });

  it.each<[string, unknown]>([
    [
      'too many topics',
      Array.from({ length: MAX_TOPICS_PER_MESSAGE + 1 }, () => ({ channel: 'alerts.in_force' })),
    ],
    ['topics not an array', { channel: 'quotes', symbols: ['AAPL'] }],
    ['no topics', undefined],
    ['an empty topics array', []],
  ])('returns invalid_message and subscribes nothing for %s', async (_case, topicsValue) => {
    const { send, topics } = await session();

    const replies = await send({ op: 'subscribe', id: 'big', topics: topicsValue });

    expect(replies).toHaveLength(1);
    expect(replies[0]).toMatchObject({ op: 'error', id: 'big', error: { code: 'invalid_message' } });
    expect(topics()).toEqual([]);
  });

  it('accepts exactly the maximum number of topics', async () => {
    const { send } = await session();
    const topicsValue = Array.from({ length: MAX_TOPICS_PER_MESSAGE }, () => ({
      channel: 'alerts.in_force',
    }));

    const replies = await send({ op: 'subscribe', topics: topicsValue });

    expect(replies).toHaveLength(1);
    expect(replies[0]).toMatchObject({ op: 'subscribed' });
  });

  it('returns the errors first, in topic order, then subscribed', async () => {
    const { send } = await session(['ws:connect', 'prices:read', 'alerts:read']);

    const replies = await send({
      op: 'subscribe',
      topics: [
        { channel: 'quotes', symbols: ['AAPL'] },
        { channel: 'news' },
        { channel: 'alerts.in_force' },
        { channel: 'states', symbols: ['AAPL'] },
        { channel: 'quotes' },
      ],
    });

    expect(replies.map((reply) => (reply.op === 'error' ? reply.error.code : reply.op))).toEqual([
      'unknown_channel',
      'missing_scope',
      'missing_symbols',
      'subscribed',
    ]);
  });

  it('never closes the connection on an error: the next message is answered', async () => {
    const { send, ports, connection } = await session(['ws:connect']);

    await send('garbage');
    await send({ op: 'dance' });
    await send({ op: 'subscribe', topics: [{ channel: 'quotes', symbols: ['AAPL'] }] });
    const replies = await send({ op: 'ping', id: 1 });

    expect(replies).toEqual([{ op: 'pong', id: 1 }]);
    expect(ports.clients.closes).toEqual([]);
    expect(await ports.connections.get(connection.accountId)).toEqual(connection);
  });
});

describe('the per-connection message rate (docs/websocket.md#limits)', () => {
  it('answers the message over the allowance rate_limit_exceeded, echoing its id, and acts on none of it', async () => {
    const { ports, send, topics } = await session();
    for (let n = 1; n < CLIENT_MESSAGE_RATE.messages; n++)
      expect(await send({ op: 'ping', id: n })).toEqual([{ op: 'pong', id: n }]);
    expect(
      await send({ op: 'subscribe', id: 'last', topics: [{ channel: 'quotes', symbols: ['AAPL'] }] }),
    ).toMatchObject([{ op: 'subscribed', id: 'last' }]);
    const over = await send({
      op: 'subscribe',
      id: 'over',
      topics: [{ channel: 'quotes', symbols: ['MSFT'] }],
    });
    expect(over).toEqual([
      {
        op: 'error',
        id: 'over',
        error: {
          code: 'rate_limit_exceeded',
          message: `at most ${CLIENT_MESSAGE_RATE.messages} messages per ${CLIENT_MESSAGE_RATE.windowSeconds} seconds per connection`,
        },
      },
    ]);
    expect(topics()).toEqual(['quotes#AAPL']);
    expect(ports.clients.closes).toEqual([]);
  });

  it('goes by the count across instances: answers a few refusals, then none, and closes with 4429 once', async () => {
    const { ports, connection } = await session();
    const { messages, answeredRefusals, closeAt } = CLIENT_MESSAGE_RATE;
    const replies: ServerReply[][] = [];
    for (let n = 1; n <= closeAt + 10; n++) {
      // Each message on an instance of its own: only the shared count sees them all.
      replies.push(
        await handleClientMessage(connection, JSON.stringify({ op: 'ping', id: n }), {
          ...ports,
          trackedSymbols: async () => TRACKED,
        }),
      );
    }
    expect(replies.slice(0, messages).every(([reply]) => reply?.op === 'pong')).toBe(true);
    expect(replies.slice(messages, messages + answeredRefusals).map(([reply]) => reply?.op)).toEqual(
      Array(answeredRefusals).fill('error'),
    );
    expect(replies.slice(messages + answeredRefusals).flat()).toEqual([]);
    expect(ports.clients.closes).toEqual([
      { connectionId: connection.connectionId, code: CLOSE_CODES.messageRateExceeded },
    ]);
  });
});

describe('screenClientMessage: the free check in one instance (docs/websocket.md#limits)', () => {
  it('lets the allowance through, then refuses without touching storage', async () => {
    const { ports, connection } = await session();
    const { messages, answeredRefusals, closeAt } = CLIENT_MESSAGE_RATE;
    const outcomes = [];
    for (let n = 1; n <= closeAt + 5; n++) {
      outcomes.push(await screenClientMessage(connection.connectionId, JSON.stringify({ id: n }), ports));
    }
    expect(outcomes.slice(0, messages).every((outcome) => outcome === undefined)).toBe(true);
    expect(
      outcomes
        .slice(messages, messages + answeredRefusals)
        .map((outcome) => (outcome?.[0] as { id?: unknown } | undefined)?.id),
    ).toEqual(Array.from({ length: answeredRefusals }, (_, index) => messages + index + 1));
    expect(outcomes.slice(messages + answeredRefusals).every((outcome) => outcome?.length === 0)).toBe(true);
    expect(ports.clients.closes).toEqual([
      { connectionId: connection.connectionId, code: CLOSE_CODES.messageRateExceeded },
    ]);
    expect(ports.messageRate.writes).toBe(0);
  });
});

describe('a topic whose symbols are all untracked', () => {
  it.each(['alerts.in_force', 'alerts.simultaneous_breaks', 'quotes'])(
    'on %s is refused with unknown_symbols, never answered "symbols": [] (every symbol)',
    async (channel) => {
      const { send, topics } = await session();
      const replies = await send({
        op: 'subscribe',
        id: 7,
        topics: [
          { channel, symbols: ['nope', 'zzzz'] },
          { channel: 'states', symbols: ['AAPL'] },
        ],
      });
      expect(replies).toEqual([
        {
          op: 'error',
          id: 7,
          error: { code: 'unknown_symbols', message: 'unknown symbols' },
          topic: { channel, symbols: ['nope', 'zzzz'] },
        },
        { op: 'subscribed', id: 7, topics: [{ channel: 'states', symbols: ['AAPL'], unknown_symbols: [] }] },
      ]);
      expect(topics()).toEqual(['states#AAPL']);
    },
  );
});

describe('the error examples of docs/websocket.md', () => {
  it('are what the service answers, word for word', async () => {
    const { readFileSync } = await import('node:fs');
    const text = readFileSync('docs/websocket.md', 'utf8');
    const section = text.slice(
      text.indexOf('Examples, with what was sent:'),
      text.indexOf('## Channels and pushed'),
    );
    const pairs = [...section.matchAll(/```text\n(.*)\n```\n```json\n([\s\S]*?)\n```/g)];
    expect(pairs.length).toBeGreaterThan(3);
    for (const [, sent, answered] of pairs) {
      if (sent?.includes('...')) continue;
      const { send } = await session();
      const replies = await send(sent as string);
      expect(replies.map((reply) => JSON.stringify(reply)).join('\n'), sent).toBe(answered);
    }
  });
});

describe('handleClientMessage: batched quotes (docs/websocket.md#batched-quotes)', () => {
  const subscribersOfAapl = (ports: Awaited<ReturnType<typeof session>>['ports']) =>
    ports.subscriptions.subscribersOf({ channel: 'quotes', symbol: 'AAPL' });

  it('subscribes a quotes topic batched, echoes "batch": true, and marks its subscriptions', async () => {
    const { ports, send } = await session();

    const replies = await send({
      op: 'subscribe',
      topics: [{ channel: 'quotes', symbols: ['aapl'], batch: true }],
    });

    expect(replies).toEqual([
      {
        op: 'subscribed',
        topics: [{ channel: 'quotes', symbols: ['AAPL'], unknown_symbols: [], batch: true }],
      },
    ]);
    expect(replySchemas.subscribed.safeParse(replies[0]).success).toBe(true);
    expect(await subscribersOfAapl(ports)).toEqual([expect.objectContaining({ batch: true })]);
  });

  it('goes by the last subscribe of a symbol: subscribing it again without batch rewrites it, again with it costs nothing', async () => {
    const { ports, send } = await session();
    await send({ op: 'subscribe', topics: [{ channel: 'quotes', symbols: ['AAPL'], batch: true }] });
    const add = vi.spyOn(ports.subscriptions, 'add');

    await send({ op: 'subscribe', topics: [{ channel: 'quotes', symbols: ['AAPL'], batch: true }] });
    expect(add).not.toHaveBeenCalled();
    await send({ op: 'subscribe', topics: [{ channel: 'quotes', symbols: ['AAPL'] }] });

    expect(add).toHaveBeenCalledTimes(1);
    expect(await subscribersOfAapl(ports)).toEqual([expect.not.objectContaining({ batch: true })]);
  });

  it.each(['states', 'alerts.in_force', 'alerts.simultaneous_breaks'])(
    'refuses "batch": true on %s with invalid_message, and still subscribes the other topics',
    async (channel) => {
      const { send, topics } = await session();

      const replies = await send({
        op: 'subscribe',
        topics: [
          { channel, symbols: ['AAPL'], batch: true },
          { channel: 'quotes', symbols: ['MSFT'] },
        ],
      });

      expect(replies).toEqual([
        error('invalid_message', { topic: { channel, symbols: ['AAPL'], batch: true } as never }),
        { op: 'subscribed', topics: [{ channel: 'quotes', symbols: ['MSFT'], unknown_symbols: [] }] },
      ]);
      expect(topics()).toEqual(['quotes#MSFT']);
    },
  );

  it('refuses a batch that is not a boolean with invalid_message', async () => {
    const { send, topics } = await session();

    const replies = await send({
      op: 'subscribe',
      topics: [{ channel: 'quotes', symbols: ['AAPL'], batch: 'yes' }],
    });

    expect(replies).toEqual([error('invalid_message'), { op: 'subscribed', topics: [] }]);
    expect(topics()).toEqual([]);
  });
});
