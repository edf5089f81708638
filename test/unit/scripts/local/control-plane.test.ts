import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  handleControl,
  isLoopbackAddress,
  refusedControlRequest,
  routedPath,
} from '#scripts/local/control-plane';
import { LocalTradeStream } from '#scripts/local/trade-stream';

/** A request as the local stack's server sees it: its path, its peer's address and its headers. */
function requestFrom(
  remoteAddress: string | undefined,
  url: string,
  headers: Record<string, string> = { host: '127.0.0.1:3000' },
): IncomingMessage {
  return { url, headers, socket: { remoteAddress } } as unknown as IncomingMessage;
}

function refusedFromAfar(request: IncomingMessage) {
  return refusedControlRequest(request, routedPath(request));
}

describe('isLoopbackAddress', () => {
  it.each(['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1'])('takes %s as this machine', (address) => {
    expect(isLoopbackAddress(address)).toBe(true);
  });

  it.each(['192.0.2.10', '10.0.0.1', '::ffff:192.0.2.10', '2001:db8::1', '1127.0.0.1', '', undefined])(
    'takes %j as another host',
    (address) => {
      expect(isLoopbackAddress(address)).toBe(false);
    },
  );
});

describe('refusedFromAfar', () => {
  it.each(['/_local/records', '/_local/stream', '/_local/ws/@connections/abc'])(
    'answers %s from another host with a 404 not_found',
    (url) => {
      const answer = refusedFromAfar(requestFrom('192.0.2.10', url));
      expect(answer?.statusCode).toBe(404);
      expect(JSON.parse(answer?.body ?? '')).toEqual({ error: { code: 'not_found', message: 'not found' } });
    },
  );

  it('serves the local endpoints to this machine, and the API to every host', () => {
    expect(refusedFromAfar(requestFrom('127.0.0.1', '/_local/records'))).toBeUndefined();
    expect(refusedFromAfar(requestFrom('::1', '/_local/ws/@connections/abc'))).toBeUndefined();
    expect(refusedFromAfar(requestFrom('192.0.2.10', '/api/market/v1/market-status'))).toBeUndefined();
  });
});

describe('routedPath', () => {
  it.each([
    ['/_local/sqs/../../x', '/x'],
    ['/_local/ws/../../x/@connections/abc', '/x/@connections/abc'],
    ['/api/market/../../_local/records', '/_local/records'],
    ['/api/%2e%2e/%2E%2e/_local/stream', '/_local/stream'],
    ['/api\\..\\_local/stream?x=1', '/_local/stream'],
  ])('resolves %s to %s, the path both routing and the loopback rule use', (url, path) => {
    expect(routedPath(requestFrom('127.0.0.1', url))).toBe(path);
  });

  it('refuses from afar a control path spelled through another one', () => {
    const request = requestFrom('192.0.2.10', '/api/market/../../_local/records');
    expect(refusedControlRequest(request, routedPath(request))?.statusCode).toBe(404);
  });
});

describe('refusedControlRequest: Host and Origin', () => {
  it.each([
    ['a rebound name', { host: 'attacker.example:3000' }],
    ['no Host at all', {}],
    ['another site', { host: '127.0.0.1:3000', origin: 'http://attacker.example' }],
    ['another port of this machine', { host: '127.0.0.1:3000', origin: 'http://127.0.0.1:8080' }],
    ['a sandboxed page', { host: 'localhost:3000', origin: 'null' }],
  ])('refuses %s on every control path', (_what, headers: Record<string, string>) => {
    for (const url of [
      '/_local/records',
      '/_local/sqs/000000000000/q',
      '/_local/ws/@connections/a',
      '/_local/metrics',
    ]) {
      expect(refusedControlRequest(requestFrom('127.0.0.1', url, headers), url)?.statusCode).toBe(404);
    }
  });

  it.each([
    ['a program (no Origin)', { host: '127.0.0.1:3000' }],
    ['localhost', { host: 'localhost:3000' }],
    ['IPv6 loopback', { host: '[::1]:3000' }],
    ['the console page of this stack', { host: 'localhost:3000', origin: 'http://localhost:3000' }],
  ])('serves %s', (_what, headers: Record<string, string>) => {
    expect(
      refusedControlRequest(requestFrom('127.0.0.1', '/_local/records', headers), '/_local/records'),
    ).toBeUndefined();
  });

  it('leaves the API to its own checks, whatever the Host and Origin', () => {
    const request = requestFrom('192.0.2.10', '/api/market/v1/market-status', {
      host: 'api.example',
      origin: 'http://attacker.example',
    });
    expect(refusedControlRequest(request, routedPath(request))).toBeUndefined();
  });
});

describe('POST /_local/records when the trades stream is full', () => {
  it('answers 503 stream_full with Retry-After, taking none of the records', async () => {
    const stream = new LocalTradeStream(() => new Promise(() => undefined), {
      capacity: 2,
      batchWindowMs: 0,
    });
    stream.offer([
      { partitionKey: 'SPY', data: '1' },
      { partitionKey: 'SPY', data: '2' },
    ]);
    const body = JSON.stringify({ records: [{ partitionKey: 'SPY', data: '3' }] });
    const request = Object.assign(Readable.from([Buffer.from(body)]), {
      url: '/_local/records',
      method: 'POST',
    }) as unknown as IncomingMessage;
    const answer = await handleControl(request, stream);
    expect(answer.statusCode).toBe(503);
    expect(answer.headers['Retry-After']).toBe('1');
    expect(JSON.parse(answer.body).error.code).toBe('stream_full');
    expect(stream.queued).toBe(2);
  });
});
