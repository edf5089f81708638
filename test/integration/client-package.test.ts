import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '#lib/project-root';

/**
 * The client library as a partner outside this repository installs it (clients/typescript/README.md#install):
 * built, packed with `npm pack`, installed from the tarball into an empty project in the system's temporary
 * folder with `npm install <tarball> --offline` (the package has no dependencies), then loaded both ways.
 */
const CLIENT = join(PROJECT_ROOT, 'clients', 'typescript');
const { version } = JSON.parse(readFileSync(join(CLIENT, 'package.json'), 'utf8')) as { version: string };
let partner: string;
let files: string[];

function run(command: string, args: string[], cwd: string): string {
  return execFileSync(command, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${join(PROJECT_ROOT, 'node_modules', '.bin')}:${process.env.PATH}` },
  });
}

beforeAll(() => {
  partner = mkdtempSync(join(tmpdir(), 'mda-partner-'));
  run('npm', ['run', 'build'], CLIENT);
  const [packed] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', partner], CLIENT)) as {
    filename: string;
    files: { path: string }[];
  }[];
  files = (packed?.files ?? []).map(({ path }) => path);
  writeFileSync(
    join(partner, 'package.json'),
    JSON.stringify({ name: 'partner', version: '1.0.0', private: true }),
  );
  run(
    'npm',
    ['install', join(partner, packed?.filename ?? ''), '--offline', '--no-audit', '--no-fund'],
    partner,
  );
}, 120_000);

afterAll(() => {
  rmSync(partner, { recursive: true, force: true });
});

describe('the client library installed from its npm pack tarball', () => {
  it('loads with require() (CommonJS)', () => {
    const out = run(
      'node',
      [
        '-e',
        "const c = require('@market-data-alerts/client'); console.log(typeof c.createClient, c.USER_AGENT)",
      ],
      partner,
    );
    expect(out.trim()).toBe(`function market-data-alerts-client/${version}`);
  });

  it('loads with import (ES module)', () => {
    const out = run(
      'node',
      [
        '--input-type=module',
        '-e',
        "import { createClient, MarketDataError } from '@market-data-alerts/client'; console.log(typeof createClient, typeof MarketDataError)",
      ],
      partner,
    );
    expect(out.trim()).toBe('function function');
  });

  it('ships no source map pointing at sources it does not ship', () => {
    expect(files.some((file) => file.endsWith('.map'))).toBe(false);
    expect(files.some((file) => file.startsWith('src/'))).toBe(false);
    const installed = join(partner, 'node_modules', '@market-data-alerts', 'client', 'dist');
    for (const file of readdirSync(installed)) {
      expect(readFileSync(join(installed, file), 'utf8')).not.toContain('sourceMappingURL');
    }
  });
});
