import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FEED_CONNECTOR_ENTRY } from '#contracts/feed';
import { bundleContainerEntry, isNodeBuiltin } from '#scripts/lib/container-bundle';

const outdir = mkdtempSync(join(tmpdir(), 'container-bundle-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('bundleContainerEntry', () => {
  it('bundles the feed connector’s entry into one file that runs with no node_modules around it', async () => {
    const bundle = await bundleContainerEntry({
      entry: FEED_CONNECTOR_ENTRY,
      outdir: join(outdir, 'feed'),
      name: 'feed-connector',
    });
    expect(bundle.outfile).toBe(join(outdir, 'feed', 'feed-connector.mjs'));
    expect(existsSync(`${bundle.outfile}.map`)).toBe(true);
    expect(bundle.inputs).toContain(FEED_CONNECTOR_ENTRY);

    // Alone in an empty folder, as in the image: whatever the connector says about its missing
    // configuration, no module is missing.
    const alone = mkdtempSync(join(outdir, 'alone-'));
    copyFileSync(bundle.outfile, join(alone, 'feed-connector.mjs'));
    const run = spawnSync(process.execPath, ['feed-connector.mjs'], {
      cwd: alone,
      encoding: 'utf8',
      env: { PATH: process.env.PATH },
      timeout: 60_000,
    });
    expect(`${run.stdout}${run.stderr}`).not.toMatch(/ERR_MODULE_NOT_FOUND|Cannot find (package|module)/);
    expect(run.status).not.toBe(0);
  });

  it('bundles the SDK’s credential providers too, which the Lambda bundles leave out', async () => {
    const bundle = await bundleContainerEntry({
      entry: 'test/unit/scripts/fixtures/sdk-client-entry.ts',
      outdir: join(outdir, 'sdk'),
      name: 'sdk-client',
    });
    const packages = bundle.inputs.filter((input) =>
      input.includes('node_modules/@aws-sdk/credential-provider-'),
    );
    expect(packages.some((input) => input.includes('/credential-provider-ini/'))).toBe(true);
    expect(packages.some((input) => input.includes('/credential-provider-http/'))).toBe(true);
  });

  it('accepts ws, whose optional native speed-ups stay unresolved', async () => {
    const bundle = await bundleContainerEntry({
      entry: 'test/unit/scripts/fixtures/ws-client-entry.ts',
      outdir: join(outdir, 'ws'),
      name: 'ws-client',
    });
    expect(bundle.inputs.some((input) => input.includes('node_modules/ws/'))).toBe(true);
  });

  it('refuses a bundle that still imports a package the image will not hold, naming it', async () => {
    await expect(
      bundleContainerEntry({
        entry: 'test/unit/scripts/fixtures/optional-require-entry.cjs',
        outdir: join(outdir, 'optional'),
        name: 'optional',
      }),
    ).rejects.toThrow(/imports what the image will not hold: a-package-that-is-not-installed$/);
  });
});

describe('isNodeBuiltin', () => {
  it.each([
    ['node:fs', true],
    ['crypto', true],
    ['@aws-sdk/credential-provider-ini', false],
    ['zod', false],
  ])('%s: %s', (path, builtin) => {
    expect(isNodeBuiltin(path)).toBe(builtin);
  });
});
