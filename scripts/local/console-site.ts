import type { IncomingMessage } from 'node:http';
import { REST_BASE_PATH } from '#contracts/routes';
import { buildConsole, type ConsoleFile } from '../../console/build.ts';
import type { HttpAnswer } from './rest-gateway.ts';

/** Where the local stack serves the web console (docs/console.md), on the API's origin. */
export const CONSOLE_PATH = '/console';
/** The demo key, for the console's "Use the local demo key" (loopback only, as every `/_local/` path). */
export const LOCAL_DEMO_KEY_PATH = '/_local/demo-key';

/**
 * The page may talk to its own origin only (REST and the WebSocket); lightweight-charts sets inline
 * styles and draws its attribution logo from a data: URL.
 */
const SECURITY_HEADERS = {
  'Content-Security-Policy':
    "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; style-src 'self' 'unsafe-inline'; " +
    "frame-ancestors 'none'; base-uri 'self'; form-action 'none'",
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
};

function notFound(): HttpAnswer {
  return {
    statusCode: 404,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ error: { code: 'not_found', message: 'not found' } }),
  };
}

/**
 * The console's static files, built with esbuild on the first request (so a stack that never serves the
 * console never builds it) and kept in memory, and its `config.json`: the REST base on this origin and the
 * demo key's path.
 */
export class LocalConsoleSite {
  private files: Promise<Map<string, ConsoleFile>> | undefined;

  constructor(private readonly build: () => Promise<Map<string, ConsoleFile>> = buildConsole) {}

  async handle(request: IncomingMessage): Promise<HttpAnswer> {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (request.method !== 'GET' && request.method !== 'HEAD') return notFound();
    // Relative URLs of the page (./console.js) need the trailing slash.
    if (path === CONSOLE_PATH)
      return { statusCode: 308, headers: { Location: `${CONSOLE_PATH}/` }, body: '' };
    const name = path.slice(CONSOLE_PATH.length + 1) || 'index.html';
    if (name === 'config.json') {
      const config = { restBaseUrl: REST_BASE_PATH, demoKeyUrl: LOCAL_DEMO_KEY_PATH };
      return {
        statusCode: 200,
        headers: { 'Content-Type': 'application/json', ...SECURITY_HEADERS },
        body: JSON.stringify(config),
      };
    }
    let files: Map<string, ConsoleFile>;
    try {
      this.files ??= this.build();
      files = await this.files;
    } catch (error) {
      this.files = undefined;
      return {
        statusCode: 500,
        headers: { 'Content-Type': 'text/plain; charset=utf-8' },
        body: `The console could not be built: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
    const file = files.get(name);
    if (!file) return notFound();
    return {
      statusCode: 200,
      headers: { 'Content-Type': file.contentType, ...SECURITY_HEADERS },
      body: request.method === 'HEAD' ? '' : file.body.toString('utf8'),
    };
  }
}

/**
 * `GET /_local/demo-key`: `{"key": "<the demo key>"}`, to this machine only: as every `/_local/` path, it is
 * refused from other hosts, with a Host that is not a loopback name (DNS rebinding) or another Origin
 * (control-plane.ts refusedControlRequest). It sends no CORS header, so another site's page cannot read it.
 */
export function demoKeyAnswer(request: IncomingMessage, demoKey: string): HttpAnswer {
  if (request.method !== 'GET') return notFound();
  return {
    statusCode: 200,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' },
    body: JSON.stringify({ key: demoKey }),
  };
}
