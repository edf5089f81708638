import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { LAMBDA_ESBUILD_OPTIONS } from '#lib/bundling';
import { PROJECT_ROOT } from '#lib/project-root';
import { CONTAINER_ENTRIES } from '../../scripts/lib/container-bundle.ts';

/**
 * package.json's `dependencies` are exactly the packages the code that ships imports: every Lambda entry
 * (functions/handlers/) and the containers' entries (functions/containers/: the feed connector, the ingest
 * consumer and its post workers, CONTAINER_ENTRIES), as esbuild bundles them.
 * Everything else (the CDK app, scripts, the console, tests) is a devDependency, so a package only the
 * browser or a script uses never reads as part of what runs on AWS (docs/architecture.md#dependencies).
 */
function shippedEntries(): string[] {
  const handlers = join(PROJECT_ROOT, 'functions/handlers');
  const entries = readdirSync(handlers).flatMap((kind) =>
    readdirSync(join(handlers, kind)).map((file) => `functions/handlers/${kind}/${file}`),
  );
  return [...entries, ...CONTAINER_ENTRIES];
}

/** The packages the project's own files in the bundles import (not what those packages import in turn). */
async function packagesImportedByShippedCode(): Promise<Set<string>> {
  const result = await build({
    ...LAMBDA_ESBUILD_OPTIONS,
    external: [...LAMBDA_ESBUILD_OPTIONS.external],
    mainFields: [...LAMBDA_ESBUILD_OPTIONS.mainFields],
    entryPoints: shippedEntries(),
    absWorkingDir: PROJECT_ROOT,
    outdir: 'out',
    write: false,
    metafile: true,
    logLevel: 'error',
  });
  const packages = new Set<string>();
  for (const [input, { imports }] of Object.entries(result.metafile.inputs)) {
    if (input.includes('node_modules/')) continue;
    for (const { path } of imports) {
      const name = path.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1];
      if (name) packages.add(name);
    }
  }
  return packages;
}

describe('package.json dependencies', () => {
  it('are the packages the Lambda and container bundles import, and no other', async () => {
    const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };

    const imported = await packagesImportedByShippedCode();

    expect(Object.keys(manifest.dependencies).sort()).toEqual([...imported].sort());
  });
});
