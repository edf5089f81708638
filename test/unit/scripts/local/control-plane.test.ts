import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { isLoopbackAddress, refusedFromAfar } from '#scripts/local/control-plane';

/** A request as the local stack's server sees it: only its path and its peer's address matter here. */
function requestFrom(remoteAddress: string | undefined, url: string): IncomingMessage {
  return { url, socket: { remoteAddress } } as unknown as IncomingMessage;
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
