import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../support/local-stack.ts';

/** The console's files and the demo key endpoint on the local stack (docs/console.md#opening-it). */
let local: TestStack;

beforeAll(async () => {
  local = await startTestStack();
});
afterAll(async () => {
  await local.stop();
});

const origin = () => new URL(local.stack.restUrl).origin;

/** A GET with a Host header of our choosing (fetch does not let one set it). */
function getWithHost(path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const call = request(new URL(path, origin()), { headers: { Host: host } }, (response) => {
      let body = '';
      response.on('data', (chunk) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    call.on('error', reject);
    call.end();
  });
}

describe('the console on the local stack', () => {
  it('redirects /console to /console/, whose relative URLs then resolve', async () => {
    const response = await fetch(`${origin()}/console`, { redirect: 'manual' });
    expect(response.status).toBe(308);
    expect(response.headers.get('location')).toBe('/console/');
  });

  it('serves the page with a policy that keeps it on its own origin', async () => {
    const response = await fetch(`${origin()}/console/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(await response.text()).toContain('<script type="module" src="./console.js"></script>');
  });

  it('serves the bundle with lightweight-charts in it, and the stylesheet', async () => {
    const script = await fetch(`${origin()}/console/console.js`);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).toContain('lightweight-charts');
    const styles = await fetch(`${origin()}/console/console.css`);
    expect(styles.status).toBe(200);
  });

  it('serves a config.json naming the REST base and the demo key path, and no key', async () => {
    const response = await fetch(`${origin()}/console/config.json`);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({ restBaseUrl: '/api/market/v1', demoKeyUrl: '/_local/demo-key' });
    expect(text).not.toContain(local.stack.demoKey);
  });

  it('answers 404 for a file it does not have', async () => {
    expect((await fetch(`${origin()}/console/secrets.txt`)).status).toBe(404);
  });

  it('gives the demo key to this machine, with no CORS header', async () => {
    const response = await fetch(`${origin()}/_local/demo-key`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ key: local.stack.demoKey });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses the demo key to a request naming another host (DNS rebinding)', async () => {
    const refused = await getWithHost('/_local/demo-key', 'attacker.example:3000');
    expect(refused.status).toBe(404);
    expect(refused.body).not.toContain(local.stack.demoKey);
    const allowed = await getWithHost('/_local/demo-key', `localhost:${new URL(origin()).port}`);
    expect(JSON.parse(allowed.body)).toEqual({ key: local.stack.demoKey });
  });
});
