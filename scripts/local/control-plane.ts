import type { IncomingMessage } from 'node:http';
import * as z from 'zod/mini';
import type { HttpAnswer } from './rest-gateway.ts';
import type { LocalTradeStream } from './trade-stream.ts';

/**
 * Local-only endpoints beside the API, under `/_local/` (never on AWS): how `npm run replay` and tests put
 * records on the local trades stream, like Kinesis PutRecords. The answer comes once the records are
 * ingested, which gives a replay natural back-pressure.
 */
/** Every local-only path: these control endpoints and the WebSocket gateway's `@connections` API. */
export const CONTROL_PREFIX = '/_local/';
const MAX_BODY_BYTES = 16 * 1024 * 1024;
const MAX_RECORDS = 50_000;

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
 * The `/_local/` endpoints (the trades stream here, the `@connections` API of the WebSocket gateway) answer
 * only this machine: started with `--host 0.0.0.0`, the stack serves the API to other hosts, but a request
 * from one of them under `/_local/` is a 404 `not_found`, as if the path did not exist. Undefined: serve it.
 */
export function refusedFromAfar(request: IncomingMessage): HttpAnswer | undefined {
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  if (!path.startsWith(CONTROL_PREFIX) || isLoopbackAddress(request.socket.remoteAddress)) return undefined;
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
    stream.put(parsed.data.records);
    await stream.flush();
    return answer(200, { accepted: parsed.data.records.length, deadLetters: stream.deadLetters.length });
  }
  if (path === `${CONTROL_PREFIX}stream` && request.method === 'GET') {
    return answer(200, { deadLetters: stream.deadLetters });
  }
  return answer(404, { error: { code: 'not_found', message: 'not found' } });
}
