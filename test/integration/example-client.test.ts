import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '#lib/project-root';
import { startTestStack, type TestStack } from '../support/local-stack.ts';
import { waitForOutput } from '../support/processes.ts';

let local: TestStack;
const clients: ChildProcess[] = [];

beforeAll(async () => {
  // 10:00 New York on a regular Tuesday, 60 times as fast: the simulator trades all the time.
  local = await startTestStack({
    clock: { start: new Date('2024-11-26T15:00:00Z'), speed: 60 },
    simulator: { seed: 3 },
  });
  await local.stack.simulation;
}, 60_000);
afterAll(async () => {
  for (const client of clients) if (client.exitCode === null) client.kill('SIGINT');
  await local.stop();
});

/** The partner example, run with plain Node as a partner would: events on stdout, the rest on stderr. */
function streamClient(symbols: string, key = local.stack.demoKey) {
  const child = spawn(
    process.execPath,
    [
      'docs/examples/stream-client.mjs',
      '--url',
      local.stack.wsUrl,
      '--key',
      key,
      '--channels',
      'quotes',
      '--symbols',
      symbols,
    ],
    { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  clients.push(child);
  const stderr: string[] = [];
  child.stderr.on('data', (chunk) => stderr.push(String(chunk)));
  return { child, stderr: () => stderr.join('') };
}

describe('docs/examples/stream-client.mjs against the local stack', () => {
  it('prints quote lines, then exits on 4409 when a second client of the account connects', async () => {
    const first = streamClient('SPY,ES1!,AAPL');
    const output = await waitForOutput(first.child, /^quotes (SPY|ES1!|AAPL) price=[\d.]+ volume=\d+/m);
    expect(output).not.toMatch(/^quotes (?!SPY |ES1! |AAPL )/m);

    const exited = once(first.child, 'exit');
    const second = streamClient('SPY,QQQ');
    const [code] = await exited;
    expect(first.stderr()).toContain('subscribed quotes: SPY,ES1!,AAPL');
    expect(first.stderr()).toContain(
      'closed 4409: replaced by a newer connection of the same account; not reconnecting',
    );
    expect(code).toBe(0);
    // The newer connection stays and gets its own subscriptions' quotes.
    await waitForOutput(second.child, /^quotes (SPY|QQQ) price=/m).catch((error: Error) => {
      throw new Error(`${error.message}\n${second.stderr()}`);
    });
    expect(second.child.exitCode).toBeNull();
  }, 60_000);

  it('stops for good, non-zero, on 4401 when the key is not valid', async () => {
    const client = streamClient('SPY', 'mda_notakey000_nosecret');
    const [code] = await once(client.child, 'exit');
    expect(client.stderr()).toContain('closed 4401: no valid API key in the handshake');
    expect(code).toBe(1);
  });
});

describe('docs/examples/stream-client.mjs without --url', () => {
  const script = join(PROJECT_ROOT, 'docs/examples/stream-client.mjs');
  const run = (cwd: string, args: string[] = []) => {
    const env = { ...process.env };
    delete env.MDA_WS_URL;
    delete env.MDA_API_KEY;
    const child = spawn(process.execPath, [script, '--channels', 'quotes', '--symbols', 'SPY', ...args], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    clients.push(child);
    const stderr: string[] = [];
    child.stderr.on('data', (chunk) => stderr.push(String(chunk)));
    return { child, stderr: () => stderr.join('') };
  };

  it("takes the running local stack's address and demo key from .data/, and says so", async () => {
    const folder = mkdtempSync(join(tmpdir(), 'mda-example-'));
    mkdirSync(join(folder, '.data'));
    writeFileSync(join(folder, '.data', 'local-stack.json'), JSON.stringify({ wsUrl: local.stack.wsUrl }));
    writeFileSync(join(folder, '.data', 'demo-key'), `${local.stack.demoKey}\n`);
    const client = run(folder);
    await waitForOutput(client.child, /^quotes SPY price=/m).catch((error: Error) => {
      throw new Error(`${error.message}\n${client.stderr()}`);
    });
    expect(client.stderr()).toContain(
      `using the running local stack's address from .data/local-stack.json: ${local.stack.wsUrl}`,
    );
    client.child.kill('SIGINT');
    await once(client.child, 'exit');
  }, 60_000);

  it('says nothing answers and exits 1 instead of reconnecting forever', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise((resolve) => closed.close(resolve));
    const client = run(mkdtempSync(join(tmpdir(), 'mda-example-')), [
      '--url',
      `ws://127.0.0.1:${port}/ws/market/v1`,
      '--key',
      'mda_any',
    ]);
    const [code] = await once(client.child, 'exit');
    expect(client.stderr()).toContain(`nothing answers at ws://127.0.0.1:${port}/ws/market/v1`);
    expect(code).toBe(1);
  });
});
