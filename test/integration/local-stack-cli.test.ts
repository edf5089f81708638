import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScript, spawnScript, waitForOutput } from '../support/processes.ts';

let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'mda-local-stack-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

/** Starts `npm start`'s script on free ports, returning its REST URL and demo key from the banner. */
async function start(extraArgs: string[] = [], environment: Record<string, string | undefined> = {}) {
  const child = spawnScript(
    'scripts/local/start.ts',
    ['--port', '0', '--dynamo-port', '0', '--data-dir', dataDir, '--no-simulator', ...extraArgs],
    environment,
  );
  const banner = await waitForOutput(child, /Ctrl-C stops it/);
  const restUrl = /REST\s+(\S+)/.exec(banner)?.[1] ?? '';
  const demoKey = /Demo key\s+(\S+)/.exec(banner)?.[1] ?? '';
  return { child, banner, restUrl, demoKey };
}

async function stopWithCtrlC(child: ReturnType<typeof spawnScript>) {
  child.kill('SIGINT');
  const [code] = await once(child, 'exit');
  return code;
}

describe('npm start, Ctrl-C and a second start', () => {
  it('serves the printed curl examples, stops cleanly and keeps its data and demo key', async () => {
    const first = await start();
    expect(first.banner).toContain('Seeded 511 instruments');
    expect(first.banner).toContain('Simulator  off: an empty market (--no-simulator)');
    expect(first.banner).toContain(
      `curl -s -H 'X-API-Key: ${first.demoKey}' '${first.restUrl}/market-status'`,
    );
    const status = await fetch(`${first.restUrl}/market-status`, { headers: { 'X-API-Key': first.demoKey } });
    expect(status.status).toBe(200);
    const future = await fetch(`${first.restUrl}/instruments/ES1%21`, {
      headers: { Authorization: `Bearer ${first.demoKey}` },
    });
    expect(((await future.json()) as { symbol: string }).symbol).toBe('ES1!');

    const created = await runScript('scripts/keys.ts', [
      '--data-dir',
      dataDir,
      'create',
      '--account',
      'acme',
      '--scopes',
      'metadata:read',
      '--label',
      'cli test',
    ]);
    expect(created.code).toBe(0);
    const partnerKey = created.stdout.trim().split('\n').at(-1) ?? '';
    expect(partnerKey).toMatch(/^mda_/);
    const withNewKey = await fetch(`${first.restUrl}/instruments?limit=1`, {
      headers: { 'X-API-Key': partnerKey },
    });
    expect(withNewKey.status).toBe(200);

    expect(await stopWithCtrlC(first.child)).toBe(0);

    const second = await start();
    try {
      expect(second.banner).not.toContain('Seeded');
      expect(second.demoKey).toBe(first.demoKey);
      const listed = await runScript('scripts/keys.ts', ['--data-dir', dataDir, 'list', '--account', 'acme']);
      expect(listed.stdout).toContain('cli test');
      expect(listed.stdout).not.toContain(partnerKey);
      const again = await fetch(`${second.restUrl}/instruments?limit=1`, {
        headers: { 'X-API-Key': partnerKey },
      });
      expect(again.status).toBe(200);
    } finally {
      expect(await stopWithCtrlC(second.child)).toBe(0);
    }
  }, 90_000);

  it('refuses bad options with a one-line message and exit code 2', async () => {
    const result = await runScript('scripts/local/start.ts', ['--clock', 'yesterday']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--clock yesterday is not an ISO 8601 instant');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});

describe("the handlers' log level", () => {
  /** Output after a request the authorizer denies: it logs `access denied` at INFO. */
  async function outputAfterADenial(extraArgs: string[]): Promise<string> {
    const stack = await start(extraArgs, { POWERTOOLS_LOG_LEVEL: undefined });
    let output = '';
    stack.child.stdout?.on('data', (chunk) => {
      output += chunk;
    });
    const created = await runScript('scripts/keys.ts', [
      '--data-dir',
      dataDir,
      'create',
      '--account',
      'log-level',
      '--scopes',
      'metadata:read',
      '--label',
      'log level test',
    ]);
    const key = created.stdout.trim().split('\n').at(-1) ?? '';
    const denied = await fetch(`${stack.restUrl}/prices/latest?symbols=AAPL`, {
      headers: { 'X-API-Key': key },
    });
    expect(denied.status).toBe(403);
    expect(await stopWithCtrlC(stack.child)).toBe(0);
    return output;
  }

  it('is WARN by default, so npm start prints no INFO lines', async () => {
    expect(await outputAfterADenial([])).not.toContain('"level":"INFO"');
  });

  it('is what --log-level says', async () => {
    expect(await outputAfterADenial(['--log-level', 'INFO'])).toMatch(
      /"level":"INFO","message":"access denied"/,
    );
  });
});

describe('Ctrl-C in a terminal', () => {
  it('stops the stack and its DynamoDB process while the simulator writes history', async () => {
    const child = spawnScript(
      'scripts/local/start.ts',
      [
        '--port',
        '0',
        '--dynamo-port',
        '0',
        '--in-memory',
        '--clock',
        '2024-11-26T15:00:00Z',
        '--speed',
        '60',
      ],
      {},
      true,
    );
    await waitForOutput(child, /History: writing about 13 months/, 60_000);
    // A terminal's Ctrl-C signals the whole foreground process group: the stack and the DynamoDB it forked.
    process.kill(-(child.pid as number), 'SIGINT');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  }, 60_000);
});

describe('a local stack that did not stop cleanly', () => {
  it('is reported by the tools, taken over by the next start, and never started twice', async () => {
    const crashed = await start();
    crashed.child.kill('SIGKILL');
    await once(crashed.child, 'exit');

    const listed = await runScript('scripts/keys.ts', ['--data-dir', dataDir, 'list', '--account', 'acme']);
    expect(listed.code).toBe(2);
    expect(listed.stderr).toContain(`(pid ${crashed.child.pid}) is not running any more`);

    const next = await start();
    expect(next.banner).toContain(`A local stack (pid ${crashed.child.pid}) did not stop cleanly`);
    const second = await runScript('scripts/local/start.ts', ['--port', '0', '--data-dir', dataDir]);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(`a local stack (pid ${next.child.pid}) is already running on ${dataDir}`);

    expect(await stopWithCtrlC(next.child)).toBe(0);
    expect(existsSync(join(dataDir, 'local-stack.json'))).toBe(false);
  });
});

describe('npm run keys', () => {
  it('explains its usage and exits 2 for an unknown command', async () => {
    const result = await runScript('scripts/keys.ts', ['--endpoint', 'http://127.0.0.1:9', 'frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown command "frobnicate"');
  });
});
