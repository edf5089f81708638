import * as z from 'zod/mini';
import {
  CHANNEL_NAMES,
  CHANNELS,
  type ChannelName,
  CLIENT_MESSAGE_RATE,
  CLOSE_CODES,
  CLOSE_REASONS,
  type CloseCode,
  HEARTBEAT,
  WS_BASE_PATH,
} from '#contracts/websocket';
import { MAX_SYMBOLS_PER_REQUEST } from '#domain/requests/limits';
import {
  clientOperationSchemas,
  MAX_RAW_SYMBOLS_PER_TOPIC,
  MAX_TOPICS_PER_MESSAGE,
  pushSchemas,
  quotesBatchSchema,
  replySchemas,
  WS_ERROR_CODES,
  type WsErrorCode,
} from '#domain/streaming/messages';

/**
 * The AsyncAPI 3.0 document of the WebSocket API, built from the channel table and close codes of
 * `#contracts/websocket` and the zod schemas of every message
 * (docs/architecture.md#contracts-one-source-of-truth-for-each): no field is restated here. The examples are
 * checked against those schemas when the document is built, so they cannot drift. From the server's point of
 * view: it `receive`s client operations and `send`s replies and pushes.
 */

type Schema = z.ZodMiniType;

function jsonSchema(schema: Schema, io: 'input' | 'output'): Record<string, unknown> {
  // Draft 7: AsyncAPI's default schema format is a superset of JSON Schema draft 07.
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io,
    target: 'draft-7',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  return rest;
}

/** What each channel carries, in partners' words (docs/websocket.md#channels-and-pushed-messages). */
const CHANNEL_CONTENT: Record<ChannelName, { title: string; content: string; messages: string[] }> = {
  quotes: {
    title: 'Quotes',
    content:
      'Real-time trade price updates: one message per new latest trade of a subscribed symbol, or, for a ' +
      'topic subscribed with `"batch": true`, one `quotesBatch` per ingest round with all of them.',
    messages: ['quote', 'quotesBatch'],
  },
  states: {
    title: 'States',
    content:
      'Live TFC state changes and setup updates: a state snapshot (the REST `/states/{symbol}` shape) ' +
      'whenever a TFC color or a setup row of a subscribed symbol changes.',
    messages: ['state'],
  },
  'alerts.in_force': {
    title: 'In-force alerts',
    content: 'In-force alert events as they fire: the same alerts, with the same ids, as `/alerts/in-force`.',
    messages: ['inForceAlert'],
  },
  'alerts.simultaneous_breaks': {
    title: 'Simultaneous breaks',
    content:
      'Simultaneous break events of the index futures: the same events, with the same ids, as ' +
      '`/alerts/simultaneous-breaks`. The message has no `symbol`; it routes to each future in `data.symbols`.',
    messages: ['simultaneousBreak'],
  },
};

const PUSH_OPERATION: Record<ChannelName, string> = {
  quotes: 'pushQuote',
  states: 'pushState',
  'alerts.in_force': 'pushInForceAlert',
  'alerts.simultaneous_breaks': 'pushSimultaneousBreak',
};

/**
 * How AWS ends an open connection with a close code
 * (docs/architecture.md#websocket-api-gateway-websocket-api-with-mapped-close-codes): a final control
 * message, then the close.
 */
const whileOpen = (code: CloseCode) =>
  `while connected (checked at each heartbeat): \`{"op":"close","code":${code},"reason":...}\`, then the ` +
  'server ends the connection';

const CLOSE_CODE_ROWS: readonly { code: CloseCode; onAws: string }[] = [
  {
    code: CLOSE_CODES.noValidKey,
    onAws: `At the handshake, the upgrade fails with HTTP 401. A key revoked ${whileOpen(CLOSE_CODES.noValidKey)}.`,
  },
  {
    code: CLOSE_CODES.forbidden,
    onAws:
      'At the handshake, the upgrade fails with HTTP 403. An entitlement lapsed or `ws:connect` removed ' +
      `${whileOpen(CLOSE_CODES.forbidden)}.`,
  },
  {
    code: CLOSE_CODES.replaced,
    onAws:
      'The connection receives `{"op":"close","code":4409,"reason":...}`, then the server ends it (the ' +
      'close frame then carries no meaningful code).',
  },
  {
    code: CLOSE_CODES.messageRateExceeded,
    onAws:
      'The connection receives `{"op":"close","code":4429,"reason":...}`, then the server ends it. Sent once ' +
      `a connection sends ${CLIENT_MESSAGE_RATE.closeAt} client messages in one ${CLIENT_MESSAGE_RATE.windowSeconds}-second ` +
      'window; unlike the codes above it is not final: reconnect with backoff and send less.',
  },
];

// Examples in the REST shapes, checked against the schemas below.
const AAPL_INSTRUMENT = {
  symbol: 'AAPL',
  name: 'Apple Inc.',
  market: 'stocks',
  exchange: 'NASDAQ',
  type: 'CS',
  sector: 'Information Technology',
  active: true,
};

const ERROR_EXAMPLES: Record<WsErrorCode, Record<string, unknown>> = {
  invalid_message: {
    op: 'error',
    id: 7,
    error: { code: 'invalid_message', message: 'topics: Too big: expected array to have <=20 items' },
  },
  unknown_op: { op: 'error', id: 8, error: { code: 'unknown_op', message: 'unknown op: subscrbe' } },
  unknown_channel: {
    op: 'error',
    id: 1,
    error: { code: 'unknown_channel', message: 'unknown channel' },
    topic: { channel: 'trades', symbols: ['AAPL'] },
  },
  missing_scope: {
    op: 'error',
    id: 1,
    error: { code: 'missing_scope', message: 'missing scope' },
    topic: { channel: 'states', symbols: ['AAPL'] },
  },
  missing_symbols: {
    op: 'error',
    id: 1,
    error: { code: 'missing_symbols', message: 'missing symbols' },
    topic: { channel: 'quotes' },
  },
  too_many_symbols: {
    op: 'error',
    id: 1,
    error: { code: 'too_many_symbols', message: 'too many symbols' },
    topic: { channel: 'quotes', symbols: ['A', 'AAL', 'AAPL', '...'] },
  },
  unknown_symbols: {
    op: 'error',
    id: 1,
    error: { code: 'unknown_symbols', message: 'unknown symbols' },
    topic: { channel: 'alerts.in_force', symbols: ['ZZZZ'] },
  },
  rate_limit_exceeded: {
    op: 'error',
    id: 51,
    error: { code: 'rate_limit_exceeded', message: 'at most 50 messages per 10 seconds per connection' },
  },
  internal_error: { op: 'error', id: 1, error: { code: 'internal_error', message: 'internal error' } },
};

interface MessageSpec {
  readonly schema: Schema;
  readonly io: 'input' | 'output';
  readonly title: string;
  readonly summary: string;
  readonly description?: string;
  readonly examples: readonly { name: string; summary?: string; payload: unknown }[];
}

const MESSAGES = {
  subscribe: {
    schema: clientOperationSchemas.subscribe,
    io: 'input',
    title: 'subscribe',
    summary: 'Adds topics to the connection (subscriptions add up; nothing is replaced).',
    description:
      `At most ${MAX_TOPICS_PER_MESSAGE} topics per message, at most ${MAX_SYMBOLS_PER_REQUEST} distinct ` +
      `symbols per topic (and ${MAX_RAW_SYMBOLS_PER_TOPIC} entries before de-duplication). Symbols are ` +
      'case-insensitive and trimmed. `quotes` and `states` need symbols; an alert channel without symbols ' +
      '(or with `symbols: []`) means every symbol. The key needs the scope of each channel. `id`, when ' +
      'given, is echoed in every reply to this message. Unknown fields are ignored. `"batch": true` on a ' +
      '`quotes` topic asks for its quotes several to a frame (`quotesBatch`); on another channel it is ' +
      'refused with `invalid_message`. A symbol is batched or not as its last `subscribe` said.',
    examples: [
      {
        name: 'quotesAndAlerts',
        payload: {
          op: 'subscribe',
          id: 1,
          topics: [{ channel: 'quotes', symbols: ['AAPL', 'MSFT', 'ES1!'] }, { channel: 'alerts.in_force' }],
        },
      },
      {
        name: 'batchedQuotes',
        payload: {
          op: 'subscribe',
          id: 2,
          topics: [{ channel: 'quotes', symbols: ['AAPL', 'MSFT'], batch: true }],
        },
      },
    ],
  },
  unsubscribe: {
    schema: clientOperationSchemas.unsubscribe,
    io: 'input',
    title: 'unsubscribe',
    summary: 'Removes topics; a topic without symbols removes every subscription of its channel.',
    description:
      'Same form and limits as `subscribe`; no scope is needed. Removing symbols of an alert channel ' +
      'leaves its every-symbol subscription, if any, in place.',
    examples: [
      {
        name: 'oneSymbolAndAChannel',
        payload: {
          op: 'unsubscribe',
          id: 2,
          topics: [{ channel: 'quotes', symbols: ['MSFT'] }, { channel: 'alerts.in_force' }],
        },
      },
    ],
  },
  ping: {
    schema: clientOperationSchemas.ping,
    io: 'input',
    title: 'ping',
    summary: 'Asks for a `pong`: a client-side liveness check.',
    examples: [{ name: 'ping', payload: { op: 'ping', id: 'p-17' } }],
  },
  subscribed: {
    schema: replySchemas.subscribed,
    io: 'output',
    title: 'subscribed',
    summary: 'What a `subscribe` added: the last reply to it, after one `error` per refused topic.',
    description:
      'Lists the accepted topics with their normalized symbols; `unknown_symbols` are those not tracked, ' +
      'which were not subscribed. A topic with no `symbols` is an every-symbol alert subscription. ' +
      '`topics` is empty when every topic was refused.',
    examples: [
      {
        name: 'withAnUnknownSymbol',
        payload: {
          op: 'subscribed',
          id: 1,
          topics: [
            { channel: 'quotes', symbols: ['AAPL', 'MSFT'], unknown_symbols: ['ZZZZ'] },
            { channel: 'alerts.in_force' },
          ],
        },
      },
    ],
  },
  unsubscribed: {
    schema: replySchemas.unsubscribed,
    io: 'output',
    title: 'unsubscribed',
    summary: 'What an `unsubscribe` removed: the last reply to it, after one `error` per refused topic.',
    examples: [
      {
        name: 'oneSymbolAndAChannel',
        payload: {
          op: 'unsubscribed',
          id: 2,
          topics: [{ channel: 'quotes', symbols: ['MSFT'] }, { channel: 'alerts.in_force' }],
        },
      },
    ],
  },
  pong: {
    schema: replySchemas.pong,
    io: 'output',
    title: 'pong',
    summary: 'The reply to `ping`.',
    examples: [{ name: 'pong', payload: { op: 'pong', id: 'p-17' } }],
  },
  error: {
    schema: replySchemas.error,
    io: 'output',
    title: 'error',
    summary: 'A refused message or topic. An error never closes the connection.',
    description:
      'A message that cannot be read at all (not JSON, no known `op`, a malformed field) gets one `error` ' +
      'and nothing else. Within a readable `subscribe` or `unsubscribe`, each refused topic gets its own ' +
      '`error` carrying the `topic` as sent, and the other topics still apply. Codes: ' +
      `${WS_ERROR_CODES.map((code) => `\`${code}\``).join(', ')}.`,
    examples: WS_ERROR_CODES.map((code) => ({
      name: code,
      ...(code === 'too_many_symbols'
        ? { summary: 'The topic as sent, all its symbols: cut short here.' }
        : {}),
      payload: ERROR_EXAMPLES[code],
    })),
  },
  heartbeat: {
    schema: replySchemas.heartbeat,
    io: 'output',
    title: 'heartbeat',
    summary: `Sent to every connection every ${HEARTBEAT.intervalMinutes} minutes; needs no answer.`,
    description:
      'Keeps the connection from being dropped as idle (API Gateway drops connections idle for 10 ' +
      'minutes). Not metered.',
    examples: [{ name: 'heartbeat', payload: { op: 'heartbeat' } }],
  },
  close: {
    schema: replySchemas.close,
    io: 'output',
    title: 'close',
    summary:
      'On AWS only: the last message before the server ends the connection; treat it as that close code.',
    description:
      'API Gateway cannot send a custom close code, so an evicted connection first receives this message ' +
      'and then is closed. The local stack sends the real close code instead.',
    examples: [
      {
        name: 'replaced',
        payload: { op: 'close', code: CLOSE_CODES.replaced, reason: CLOSE_REASONS[CLOSE_CODES.replaced] },
      },
    ],
  },
  quote: {
    schema: pushSchemas.quotes,
    io: 'output',
    title: 'quote',
    summary: 'A new latest trade: `data` is a price item, as in `/prices/latest`.',
    examples: [
      {
        name: 'aapl',
        payload: { channel: 'quotes', symbol: 'AAPL', data: { symbol: 'AAPL', price: 229.87, volume: 100 } },
      },
    ],
  },
  quotesBatch: {
    schema: quotesBatchSchema,
    io: 'output',
    title: 'quotesBatch',
    summary:
      'Opt-in (`"batch": true` on a `quotes` topic): the quotes of one ingest round for this connection, in ' +
      'one frame; `data` is as the body of `/prices/latest`.',
    description:
      'A symbol appears at most once per frame, and the frames of a symbol come in the order of its trades. ' +
      'Each item is one pushed event and one `ws_message` usage row, as a `quote` would be.',
    examples: [
      {
        name: 'twoSymbols',
        payload: {
          channel: 'quotes',
          data: {
            items: [
              { symbol: 'AAPL', price: 229.87, volume: 100 },
              { symbol: 'MSFT', price: 415.02, volume: 20 },
            ],
          },
        },
      },
    ],
  },
  state: {
    schema: pushSchemas.states,
    io: 'output',
    title: 'state',
    summary: 'A changed TFC or setups: `data` is a state snapshot, as in `/states/{symbol}`.',
    examples: [
      {
        name: 'aapl',
        payload: {
          channel: 'states',
          symbol: 'AAPL',
          data: {
            symbol: 'AAPL',
            instrument: AAPL_INSTRUMENT,
            price: { price: 229.87, volume: 100, time: '2024-11-26T15:42:07.000Z' },
            tfc: { '15': 'green', '30': 'green', '60': 'red', '4H': 'green', D: 'green', W: 'green' },
            setups: [
              {
                symbol: 'AAPL',
                timeframe: 'D',
                shape: '1-2U',
                in_force: true,
                p3: false,
                pmg: 232.5,
                continuation: false,
                sector: 'Information Technology',
              },
            ],
            default_timeframe: 'D',
            chart_timeframes: ['15', '30', '60', '4H', 'D', 'W', 'M', 'Q', 'Y'],
          },
        },
      },
    ],
  },
  inForceAlert: {
    schema: pushSchemas['alerts.in_force'],
    io: 'output',
    title: 'in-force alert',
    summary: 'A setup went in force: `data` is an in-force alert, as in `/alerts/in-force`.',
    examples: [
      {
        name: 'es',
        payload: {
          channel: 'alerts.in_force',
          symbol: 'ES1!',
          data: {
            id: 41,
            symbol: 'ES1!',
            timeframe: 'D',
            direction: 'bullish',
            shape: '1-2U',
            price: 5225,
            triggered_at: '2024-11-22T14:40:15.000Z',
            cc: '2U',
          },
        },
      },
    ],
  },
  simultaneousBreak: {
    schema: pushSchemas['alerts.simultaneous_breaks'],
    io: 'output',
    title: 'simultaneous break',
    summary:
      'Index futures broke the same way: `data` is a break event, as in `/alerts/simultaneous-breaks`.',
    examples: [
      {
        name: 'threeFutures',
        payload: {
          channel: 'alerts.simultaneous_breaks',
          data: {
            id: 7,
            timeframe: 'D',
            direction: 'bullish',
            threshold: 3,
            symbols: ['ES1!', 'NQ1!', 'RTY1!'],
            triggered_at: '2024-11-22T14:44:15.000Z',
          },
        },
      },
    ],
  },
} satisfies Record<string, MessageSpec>;

type MessageName = keyof typeof MESSAGES;

const CONTROL_MESSAGES: readonly MessageName[] = [
  'subscribe',
  'unsubscribe',
  'ping',
  'subscribed',
  'unsubscribed',
  'pong',
  'error',
  'heartbeat',
  'close',
];

function message(name: MessageName) {
  const spec: MessageSpec = MESSAGES[name];
  for (const example of spec.examples) {
    const parsed = spec.schema.safeParse(example.payload);
    if (!parsed.success) {
      throw new Error(`AsyncAPI example ${name}/${example.name} does not match its schema: ${parsed.error}`);
    }
  }
  return {
    name,
    title: spec.title,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    contentType: 'application/json',
    payload: jsonSchema(spec.schema, spec.io),
    examples: spec.examples.map((example) => ({ ...example })),
  };
}

const ref = ($ref: string) => ({ $ref });
const channelMessage = (channel: string, name: MessageName) => ref(`#/channels/${channel}/messages/${name}`);

function channelDescription(channel: ChannelName): string {
  const { scope, symbols } = CHANNELS[channel];
  const rule =
    symbols === 'required'
      ? 'A topic must name symbols.'
      : 'A topic without symbols (or with `symbols: []`) means every symbol.';
  return `Scope \`${scope}\` (besides \`ws:connect\`). ${CHANNEL_CONTENT[channel].content} ${rule}`;
}

function clientOperation(
  name: 'subscribe' | 'unsubscribe' | 'ping',
  replies: MessageName[],
  summary: string,
) {
  return {
    action: 'receive',
    channel: ref('#/channels/control'),
    summary,
    messages: [channelMessage('control', name)],
    reply: {
      channel: ref('#/channels/control'),
      messages: replies.map((reply) => channelMessage('control', reply)),
    },
  };
}

const closeCodesTable = [
  '| Code | Meaning | On AWS |',
  '|---|---|---|',
  ...CLOSE_CODE_ROWS.map(({ code, onAws }) => `| ${code} | ${CLOSE_REASONS[code]} | ${onAws} |`),
].join('\n');

const DESCRIPTION = [
  'Pushed market data and Strat events over one WebSocket connection per account. The handshake carries the',
  'API key (`X-API-Key: <key>` or `Authorization: Bearer <key>`; a browser, which cannot set headers, offers',
  '`Sec-WebSocket-Protocol: market-data.v1, key.<key>` and the server selects `market-data.v1`) and needs the',
  '`ws:connect` scope; each',
  'channel needs its own scope too. Subscribe with `{"op":"subscribe","topics":[{"channel","symbols"}]}`.',
  'Pushed events are `{"channel","symbol"?,"data"}` with `data` in its REST shape.',
  '',
  'Close codes (the local stack sends them as WebSocket close codes; AWS cannot, see the last column):',
  '',
  closeCodesTable,
  '',
  `A key revoked, or an entitlement lapsed, while connected closes the connection at the next heartbeat`,
  `(within ${HEARTBEAT.intervalMinutes} minutes) with 4401 or 4403. Do not reconnect after 4401, 4403 or 4409.`,
  '',
  'Any other close (the 2-hour connection limit on AWS, a network failure, a deployment) is not final:',
  'reconnect with exponential backoff and jitter, subscribe again, and catch up over REST.',
  '',
  'Delivery is at least once, in order per symbol: deduplicate alerts and breaks by `id`. Each pushed event',
  'is metered as one `ws_message` usage row; replies and heartbeats are not. Reference: docs/websocket.md.',
].join('\n');

export function asyncApiDocument(): Record<string, unknown> {
  const security = [ref('#/components/securitySchemes/apiKey'), ref('#/components/securitySchemes/bearer')];
  const channels: Record<string, unknown> = {
    control: {
      address: null,
      title: 'Control',
      description:
        'The connection itself: client operations and their replies, heartbeats and, on AWS, the final ' +
        'close message. Replies to one message come in order: one `error` per refused topic, then ' +
        '`subscribed` / `unsubscribed`.',
      messages: Object.fromEntries(
        CONTROL_MESSAGES.map((name) => [name, ref(`#/components/messages/${name}`)]),
      ),
      bindings: {
        ws: {
          method: 'GET',
          headers: {
            type: 'object',
            description:
              'The API key, in either header (both accepted), or, from a browser, as a `key.` subprotocol ' +
              'beside `market-data.v1`, which the server selects.',
            properties: {
              'Sec-WebSocket-Protocol': {
                type: 'string',
                pattern: '(^|, *)market-data\\.v1(,|$)',
                examples: ['market-data.v1, key.mda_k7f3x9q2m4ab_3q2u...'],
              },
              'X-API-Key': { type: 'string', examples: ['mda_k7f3x9q2m4ab_3q2u...'] },
              Authorization: {
                type: 'string',
                pattern: '^Bearer ',
                examples: ['Bearer mda_k7f3x9q2m4ab_3q2u...'],
              },
            },
          },
          bindingVersion: '0.1.0',
        },
      },
    },
  };
  const operations: Record<string, unknown> = {
    subscribe: clientOperation('subscribe', ['error', 'subscribed'], 'Subscribe to topics.'),
    unsubscribe: clientOperation('unsubscribe', ['error', 'unsubscribed'], 'Unsubscribe from topics.'),
    ping: clientOperation('ping', ['pong'], 'Check that the connection is alive.'),
    heartbeat: {
      action: 'send',
      channel: ref('#/channels/control'),
      summary: MESSAGES.heartbeat.summary,
      messages: [channelMessage('control', 'heartbeat')],
    },
    close: {
      action: 'send',
      channel: ref('#/channels/control'),
      summary: MESSAGES.close.summary,
      messages: [channelMessage('control', 'close')],
    },
  };
  for (const channel of CHANNEL_NAMES) {
    const names = CHANNEL_CONTENT[channel].messages as MessageName[];
    channels[channel] = {
      address: channel,
      title: CHANNEL_CONTENT[channel].title,
      description: channelDescription(channel),
      messages: Object.fromEntries(names.map((name) => [name, ref(`#/components/messages/${name}`)])),
    };
    operations[PUSH_OPERATION[channel]] = {
      action: 'send',
      channel: ref(`#/channels/${channel}`),
      summary: MESSAGES[names[0] as MessageName].summary,
      messages: names.map((name) => channelMessage(channel, name)),
    };
  }

  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Market Data Alerts Partner Service: WebSocket API',
      version: 'v1',
      description: DESCRIPTION,
    },
    defaultContentType: 'application/json',
    servers: {
      production: {
        host: '{host}',
        protocol: 'wss',
        pathname: WS_BASE_PATH,
        description: 'The service on AWS (API Gateway WebSocket API).',
        variables: { host: { default: 'api.example.com' } },
        security,
      },
      local: {
        host: 'localhost:{port}',
        protocol: 'ws',
        pathname: WS_BASE_PATH,
        description: '`npm start`: the same port as the local REST API; it prints a demo key.',
        variables: { port: { default: '3000' } },
        security,
      },
    },
    channels,
    operations,
    components: {
      messages: Object.fromEntries(
        (Object.keys(MESSAGES) as MessageName[]).map((name) => [name, message(name)]),
      ),
      securitySchemes: {
        apiKey: { type: 'httpApiKey', name: 'X-API-Key', in: 'header' },
        bearer: { type: 'http', scheme: 'bearer' },
      },
    },
    'x-close-codes': CLOSE_CODE_ROWS.map(({ code, onAws }) => ({
      code,
      reason: CLOSE_REASONS[code],
      onAws,
    })),
  };
}
