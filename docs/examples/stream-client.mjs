#!/usr/bin/env node
// Market Data Alerts: a WebSocket stream client to copy from. Plain Node (20+) and the `ws` package
// (`npm install ws`). Reference: docs/websocket.md; schemas: docs/asyncapi.json.
//
//   node stream-client.mjs --url wss://<host>/ws/market/v1 --key mda_... \
//     [--symbols AAPL,MSFT,ES1!] [--channels quotes,states,alerts.in_force,alerts.simultaneous_breaks] [--debug]
//
// MDA_WS_URL and MDA_API_KEY stand in for --url and --key. Without either, it uses the running local stack
// (`npm start`, run from the repository's root): its address from .data/local-stack.json and its demo key
// from .data/demo-key, and says so. If nothing ever answers at the address, it says so and exits 1; once
// connected, it reconnects after any drop.
// Events go to stdout, one line each; replies, errors and connection news go to stderr.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';

const LOCAL_STACK_FILE = '.data/local-stack.json';
const FALLBACK_URL = 'ws://127.0.0.1:3000/ws/market/v1';

/** The running local stack's WebSocket address and demo key, when this folder has one (`npm start`). */
function localStack() {
  try {
    const { wsUrl } = JSON.parse(readFileSync(LOCAL_STACK_FILE, 'utf8'));
    let key;
    try {
      key = readFileSync('.data/demo-key', 'utf8').trim();
    } catch {}
    return { wsUrl, key };
  } catch {
    return undefined;
  }
}

const local = localStack();
const { values: options } = parseArgs({
  options: {
    url: { type: 'string', default: process.env.MDA_WS_URL ?? local?.wsUrl ?? FALLBACK_URL },
    key: { type: 'string', default: process.env.MDA_API_KEY ?? local?.key },
    symbols: { type: 'string', default: 'AAPL,SPY,ES1!' },
    channels: { type: 'string', default: 'quotes,states,alerts.in_force,alerts.simultaneous_breaks' },
    debug: { type: 'boolean', default: false },
  },
});
if (!options.key) {
  console.error(
    'usage: node stream-client.mjs --key <API key> [--url ws(s)://host/ws/market/v1] (or MDA_API_KEY)',
  );
  process.exit(2);
}
if (!process.argv.includes('--url') && !process.env.MDA_WS_URL) {
  console.error(
    local
      ? `using the running local stack's address from ${LOCAL_STACK_FILE}: ${options.url}`
      : `no ${LOCAL_STACK_FILE} here (no local stack running from this folder): trying ${options.url}`,
  );
}
const symbols = options.symbols.split(',').filter(Boolean);
// quotes and states need symbols; an alert channel without symbols means every symbol.
const topics = options.channels
  .split(',')
  .map((channel) => (channel === 'quotes' || channel === 'states' ? { channel, symbols } : { channel }));

const PING_EVERY_MS = 60_000;
const MAX_BACKOFF_MS = 30_000;
// Closes that a reconnect cannot fix. On AWS, a refused handshake is HTTP 401/403 on the upgrade, and a
// connection the server ends gets a final {"op":"close","code":...} message: both are mapped to these codes.
const FINAL_CLOSES = {
  4401: 'no valid API key in the handshake (absent, unknown or revoked): check the key',
  4403: 'no active API Access subscription, or the key lacks the ws:connect scope',
  4409: 'replaced by a newer connection of the same account',
};

const status = (line) => console.error(line);
const debug = (line) => options.debug && console.error(`debug: ${line}`);
let attempt = 0;
let everConnected = false;
const lastIds = {}; // per alert channel: the highest id seen, to catch up over REST after a gap
let current;

process.on('SIGINT', () => {
  current?.close(1000);
  process.exit(0);
});

function connect() {
  // `Authorization: Bearer <key>` works as well as X-API-Key.
  const socket = new WebSocket(options.url, { headers: { 'X-API-Key': options.key } });
  current = socket;
  let finalCode; // set when the server told us why it is closing (AWS control message, HTTP status)
  let awaitingPong = false;
  let pinger;

  const send = (message) => socket.send(JSON.stringify(message));

  socket.on('unexpected-response', (_request, response) => {
    // AWS refuses a bad handshake with an HTTP status instead of a close code.
    finalCode = { 401: 4401, 403: 4403 }[response.statusCode];
    status(`handshake refused: HTTP ${response.statusCode}`);
    response.resume();
    socket.terminate(); // emits 'close', handled below
  });

  socket.on('open', () => {
    everConnected = true;
    status(`connected to ${options.url}`);
    // A new connection starts with no subscriptions: subscribe every time, reconnects included.
    send({ op: 'subscribe', id: 'initial', topics });
    // Events pushed while disconnected are not replayed: fetch them over REST (quotes and states: the
    // latest values from /prices/latest and /states/{symbol}).
    if (lastIds['alerts.in_force'])
      status(`missed alerts: GET /alerts/in-force?since_id=${lastIds['alerts.in_force']}`);
    if (lastIds['alerts.simultaneous_breaks']) {
      status(
        `missed breaks: GET /alerts/simultaneous-breaks?since_id=${lastIds['alerts.simultaneous_breaks']}`,
      );
    }
    // Our own liveness check; the server also sends {"op":"heartbeat"} every 4 minutes.
    pinger = setInterval(() => {
      if (awaitingPong) {
        status('no pong for a minute: dropping the connection');
        socket.terminate();
        return;
      }
      awaitingPong = true;
      send({ op: 'ping', id: `ping-${Date.now()}` });
    }, PING_EVERY_MS);
  });

  socket.on('message', (raw) => {
    let message;
    try {
      message = JSON.parse(raw.toString());
    } catch {
      return status(`not JSON: ${raw}`);
    }
    if (message.channel) {
      // At least once: an alert or break may come twice; its id tells (dedupe by id).
      if (message.data?.id !== undefined) {
        lastIds[message.channel] = Math.max(lastIds[message.channel] ?? 0, message.data.id);
      }
      console.log(`${message.channel} ${message.symbol ?? '-'} ${compact(message.channel, message.data)}`);
      return;
    }
    switch (message.op) {
      case 'subscribed':
      case 'unsubscribed':
        attempt = 0; // the connection works: the next reconnect starts from a short delay again
        for (const topic of message.topics) {
          const unknown = topic.unknown_symbols?.length ? ` (not tracked: ${topic.unknown_symbols})` : '';
          status(`${message.op} ${topic.channel}: ${topic.symbols?.join(',') ?? 'every symbol'}${unknown}`);
        }
        break;
      case 'error':
        status(
          `error ${message.error.code}: ${message.error.message} ${message.topic ? JSON.stringify(message.topic) : ''}`,
        );
        break;
      case 'pong':
        awaitingPong = false;
        debug('pong');
        break;
      case 'heartbeat':
        debug('heartbeat'); // nothing to answer
        break;
      case 'close': // AWS: the last message before the server ends the connection
        finalCode = message.code;
        socket.close();
        break;
      default:
        status(`unexpected message: ${raw}`);
    }
  });

  socket.on('error', (error) => {
    if (!everConnected) status(`cannot connect to ${options.url}: ${error.message}`);
    else debug(`socket error: ${error.message}`); // a 'close' follows
  });

  socket.on('close', (code, reason) => {
    clearInterval(pinger);
    const closeCode = finalCode ?? code;
    if (FINAL_CLOSES[closeCode]) {
      status(`closed ${closeCode}: ${FINAL_CLOSES[closeCode]}; not reconnecting`);
      // 4409: another client of the account took over; exit 0 so a supervisor does not start a tug of war.
      process.exit(closeCode === 4409 ? 0 : 1);
    }
    if (!everConnected) {
      // Nothing answered at all: a wrong address or no service running. Reconnecting would only hide that.
      status(
        `nothing answers at ${options.url}: is the service running there (locally: npm start)? ` +
          'Pass --url (or MDA_WS_URL) to use another address.',
      );
      process.exit(1);
    }
    // Anything else (network, deployment, AWS's 2-hour connection limit): reconnect with exponential
    // backoff and jitter, capped at 30 s.
    const delay = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** attempt) * (0.5 + Math.random() / 2);
    attempt += 1;
    status(`closed ${code} ${reason}; reconnecting in ${(delay / 1000).toFixed(1)} s`);
    setTimeout(connect, delay);
  });
}

/** One event's data on one line. */
function compact(channel, data) {
  switch (channel) {
    case 'quotes':
      return `price=${data.price} volume=${data.volume}`;
    case 'states': {
      const tfc = Object.entries(data.tfc).map(([timeframe, color]) => `${timeframe}:${color}`);
      const setups = data.setups.map((s) => `${s.shape}@${s.timeframe}${s.in_force ? '(in force)' : ''}`);
      return `price=${data.price.price ?? '-'} tfc=${tfc.join(',')} setups=${setups.join(',') || '-'}`;
    }
    case 'alerts.in_force':
      return `#${data.id} ${data.timeframe} ${data.direction} ${data.shape} at ${data.price} cc=${data.cc} ${data.triggered_at}`;
    case 'alerts.simultaneous_breaks':
      return `#${data.id} ${data.timeframe} ${data.direction} ${data.threshold} of ${data.symbols} ${data.triggered_at}`;
    default:
      return JSON.stringify(data);
  }
}

connect();
