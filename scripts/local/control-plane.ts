import type { IncomingMessage } from 'node:http';
import * as z from 'zod/mini';
import type { VirtualClockSettings } from '../lib/virtual-clock.ts';
import type { HttpAnswer } from './rest-gateway.ts';
import { LOCAL_STREAM_CAPACITY, type LocalTradeStream } from './trade-stream.ts';

/**
 * Local-only endpoints beside the API, under `/_local/` (never on AWS): how `npm run replay` and tests put
 * records on the local trades stream, like Kinesis PutRecords. The answer comes once the records are
 * ingested, which gives a replay natural back-pressure.
 */
/** Every local-only path: these control endpoints and the WebSocket gateway's `@connections` API. */
export const CONTROL_PREFIX = '/_local/';

/**
 * `GET /_local/clock`: the service clock the stack's handlers read, `{ "clock": { start, anchorMs, speed } }`,
 * or `{ "clock": null }` on the wall clock. A process beside the stack (`npm run feed`) reads it to run on the
 * same service time (scripts/lib/local-clock.ts).
 */
export const LOCAL_CLOCK_PATH = '/_local/clock';
const MAX_BODY_BYTES = 16 * 1024 * 1024;
const MAX_RECORDS = LOCAL_STREAM_CAPACITY;
/** How long a producer refused by a full stream waits before sending again. */
const RETRY_AFTER_SECONDS = 1;

const putRecordsSchema = z.object({
  records: z
    .array(
      z.object({
        partitionKey: z.string().check(z.minLength(1), z.maxLength(256)),
        data: z.string().check(z.maxLength(1024 * 1024)),
      }),
    )
    .check(z.maxLength(MAX_RECORDS)),
});

function answer(statusCode: number, body: unknown): HttpAnswer {
  return { statusCode, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
}

/** A request's body as text, or undefined once it passes `maxBytes` (the rest is not read). */
export async function readBody(
  request: IncomingMessage,
  maxBytes: number = MAX_BODY_BYTES,
): Promise<string | undefined> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** True for an address of this machine's loopback: 127.0.0.0/8, ::1, or either mapped into IPv6. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4) || address === '::1';
}

/**
 * A request's path as the local stack routes it and as its loopback rule checks it: one value for both,
 * resolved as a URL resolves it (`.` and `..` segments, `%2e%2e`, backslashes), so no spelling of a path can
 * pass the rule as one path and be served as another.
 */
export function routedPath(request: IncomingMessage): string {
  return new URL(request.url ?? '/', 'http://localhost').pathname;
}

/** A Host header naming this machine: a page of another site rebound to 127.0.0.1 names its own host. */
export function isLoopbackHost(host: string | undefined): boolean {
  const name = (host ?? '').replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1');
  return name === 'localhost' || isLoopbackAddress(name);
}

/**
 * No Origin (a program: curl, `npm run replay`, the handlers' AWS SDK clients), or the origin of the stack
 * itself (the console's page): a page of any other origin (another site, another port of this machine, a
 * sandboxed `null`) is refused, text/plain POSTs included, which a browser sends without asking first.
 */
function isOwnOrigin(origin: string | undefined, host: string | undefined): boolean {
  return origin === undefined || origin === `http://${host}`;
}

/**
 * The `/_local/` endpoints (the trades stream, the dead-letter queue, metrics, usage, the demo key, the
 * `@connections` API of the WebSocket gateway) answer only this machine, and only programs or pages of this
 * stack's own origin (docs/architecture.md#the-local-control-plane): a request from
 * another host (`--host 0.0.0.0`), with a Host that is not a loopback name (DNS rebinding), or with an Origin
 * other than the stack's (a cross-site request) is a 404 `not_found`, as if the path did not exist. `path`
 * is {@link routedPath}'s. Undefined: serve it.
 */
/** The answer of {@link LOCAL_CLOCK_PATH}. */
export function clockAnswer(clock: VirtualClockSettings | undefined): HttpAnswer {
  return answer(200, {
    clock: clock ? { start: clock.start.toISOString(), anchorMs: clock.anchorMs, speed: clock.speed } : null,
  });
}

export function refusedControlRequest(request: IncomingMessage, path: string): HttpAnswer | undefined {
  if (!path.startsWith(CONTROL_PREFIX)) return undefined;
  const { host, origin } = request.headers;
  if (isLoopbackAddress(request.socket.remoteAddress) && isLoopbackHost(host) && isOwnOrigin(origin, host)) {
    return undefined;
  }
  return answer(404, { error: { code: 'not_found', message: 'not found' } });
}

export async function handleControl(request: IncomingMessage, stream: LocalTradeStream): Promise<HttpAnswer> {
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  if (path === `${CONTROL_PREFIX}records` && request.method === 'POST') {
    const body = await readBody(request);
    if (body === undefined) return answer(413, { error: { code: 'too_large', message: 'body over 16 MiB' } });
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      return answer(400, { error: { code: 'invalid_body', message: 'the body is not JSON' } });
    }
    const parsed = putRecordsSchema.safeParse(json);
    if (!parsed.success) {
      return answer(400, { error: { code: 'invalid_body', message: z.prettifyError(parsed.error) } });
    }
    if (!stream.offer(parsed.data.records)) {
      // Back-pressure (docs/replay.md#back-pressure): the producer waits and sends the same records again.
      return {
        ...answer(503, {
          error: { code: 'stream_full', message: 'the local trades stream is full: retry after a second' },
        }),
        headers: { 'Content-Type': 'application/json', 'Retry-After': String(RETRY_AFTER_SECONDS) },
      };
    }
    await stream.flush();
    return answer(200, { accepted: parsed.data.records.length, deadLetters: stream.deadLetters.length });
  }
  if (path === `${CONTROL_PREFIX}stream` && request.method === 'GET') {
    return answer(200, { deadLetters: stream.deadLetters });
  }
  return answer(404, { error: { code: 'not_found', message: 'not found' } });
}
