import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { usageOf } from '../../../scripts/lib/cli.ts';

const run = promisify(execFile);
const packageJson = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
  scripts: Record<string, string>;
};

/** Every `npm run` command that is a TypeScript entry of scripts/ (`tsx scripts/X.ts`). */
const entries = Object.entries(packageJson.scripts)
  .map(([name, command]) => [name, /^tsx (scripts\/\S+\.ts)$/.exec(command)?.[1]] as const)
  .filter((entry): entry is readonly [string, string] => entry[1] !== undefined);

describe('npm run <command> -- --help', () => {
  it('covers the commands of package.json', () => {
    expect(entries.map(([name]) => name)).toEqual(
      expect.arrayContaining([
        'start',
        'feed',
        'replay',
        'backfill',
        'keys',
        'seed',
        'calendar',
        'redrive',
        'usage',
      ]),
    );
  });

  it("reads the usage from the entry file's header comment", () => {
    expect(usageOf(new URL('../../../scripts/feed.ts', import.meta.url).href)).toMatch(
      /^`npm run feed -- --provider alpaca\|polygon[^\n]*\n[\s\S]*\n {2}--rest-url U {5}the provider's REST origin/,
    );
  });

  // One process per command (each loads its own imports): a handful at a time, on two shared cores.
  it.concurrent.each(entries)(
    '%s answers --help and -h with its usage on stdout and exit code 0',
    async (name, file) => {
      for (const flag of ['--help', '-h']) {
        const { stdout } = await run(process.execPath, ['--import', 'tsx', file, flag], { timeout: 60_000 });
        expect(stdout).toMatch(name === 'start' ? /npm start/ : new RegExp(`npm run ${name}\\b`));
      }
    },
    120_000,
  );
});
