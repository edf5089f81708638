/**
 * `npm run openapi:examples`: asks a local stack (in memory, on free ports, the Strat week of
 * test/fixtures/strat-week.csv replayed) one request per answer each route documents, and writes the real
 * answers to scripts/openapi-examples.json, which `npm run openapi` puts into docs/openapi.json as each
 * response's example. test/unit/scripts/openapi.test.ts validates each example against its schema.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { REST_ROUTES } from '#contracts/routes';
import { PROJECT_ROOT } from '#lib/project-root';
import { errorResponse } from '#runtime/http';
import { answerHelp } from './lib/cli.ts';
import { createKey, setEntitlement } from './lib/key-administration.ts';
import { OPENAPI_EXAMPLES_FILE } from './lib/openapi.ts';
import { startLocalStack } from './local/stack.ts';

answerHelp(import.meta.url);

type RouteId = (typeof REST_ROUTES)[number]['id'];

/** The requests whose answers become each route's examples, by status (paths below the REST base). */
const REQUESTS: Record<RouteId, { ok: string; errors: Record<number, string> }> = {
  listInstruments: { ok: '/instruments?symbols=AAPL,ES1!', errors: { 400: '/instruments?limit=ten' } },
  getInstrument: { ok: '/instruments/AAPL', errors: { 404: '/instruments/NOPE' } },
  getMarketStatus: { ok: '/market-status', errors: {} },
  getLatestPrices: { ok: '/prices/latest?symbols=AAPL,ES1!', errors: { 400: '/prices/latest' } },
  getCandles: {
    ok: '/candles/AAPL?interval=1d&limit=2',
    errors: { 400: '/candles/AAPL?start=yesterday', 404: '/candles/NOPE' },
  },
  getState: { ok: '/states/ES1!', errors: { 404: '/states/NOPE' } },
  getCurrentSetups: { ok: '/setups/current?symbols=AAPL', errors: { 400: '/setups/current?timeframes=2D' } },
  getInForceAlerts: { ok: '/alerts/in-force?limit=2', errors: { 400: '/alerts/in-force?direction=up' } },
  getSimultaneousBreaks: {
    ok: '/alerts/simultaneous-breaks?limit=2',
    errors: { 400: '/alerts/simultaneous-breaks?threshold=5' },
  },
};

async function replayStratWeek(restUrl: string): Promise<void> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'scripts/replay.ts', '--file', 'test/fixtures/strat-week.csv', '--url', restUrl],
    { cwd: PROJECT_ROOT, stdio: 'inherit', env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT' } },
  );
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`replay failed with ${code}`);
}

const stack = await startLocalStack({
  port: 0,
  dynamoPort: 0,
  authCacheTtlSeconds: 0,
  clock: { start: new Date('2024-11-22T16:00:00Z'), speed: 1 },
});
try {
  await replayStratWeek(stack.restUrl);
  const ports = stack.keyAdministration;
  const pricesOnly = (
    await createKey({ accountId: 'examples', label: 'prices only', scopes: ['prices:read'] }, ports)
  ).rawKey;
  const lapsed = (await createKey({ accountId: 'lapsed', label: 'lapsed', scopes: ['metadata:read'] }, ports))
    .rawKey;
  await setEntitlement({ accountId: 'lapsed', status: 'inactive' }, ports);

  const answer = async (path: string, headers: Record<string, string> = { 'X-API-Key': stack.demoKey }) => {
    const response = await fetch(`${stack.restUrl}${path}`, { headers });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
  };
  const expectStatus = async (status: number, path: string, headers?: Record<string, string>) => {
    const got = await answer(path, headers);
    if (got.status !== status) throw new Error(`${path}: expected ${status}, got ${got.status}`);
    return got.body;
  };

  const examples: Record<string, Record<string, unknown>> = {};
  for (const [id, requests] of Object.entries(REQUESTS)) {
    const route = examples[id] ?? {};
    route[200] = await expectStatus(200, requests.ok);
    for (const [status, path] of Object.entries(requests.errors)) {
      route[status] = await expectStatus(Number(status), path);
    }
    examples[id] = route;
  }
  // What every route can answer before its logic, taken from /market-status's real answers.
  const gateway: Record<string, unknown> = {
    401: await expectStatus(401, '/market-status', {}),
    403: await expectStatus(403, '/market-status', { 'X-API-Key': pricesOnly }),
    '403-inactive': await expectStatus(403, '/market-status', { 'X-API-Key': lapsed }),
    431: await expectStatus(431, '/market-status', {
      'X-API-Key': stack.demoKey,
      'X-Pad': 'x'.repeat(20_000),
    }),
  };
  let throttled: unknown;
  for (let round = 0; round < 20 && throttled === undefined; round++) {
    const answers = await Promise.all(Array.from({ length: 50 }, () => answer('/market-status')));
    throttled = answers.find((entry) => entry.status === 429)?.body;
  }
  if (throttled === undefined) throw new Error('no 429 after 1,000 requests');
  gateway[429] = throttled;
  // A 500 cannot be provoked on a healthy stack: the example is the body every handler renders for one.
  gateway[500] = JSON.parse(errorResponse('internal_error').body) as unknown;
  examples.gateway = gateway;
  await writeFile(join(PROJECT_ROOT, OPENAPI_EXAMPLES_FILE), `${JSON.stringify(examples, null, 2)}\n`);
  process.stdout.write(`Wrote ${OPENAPI_EXAMPLES_FILE}\n`);
} finally {
  await stack.stop();
}
