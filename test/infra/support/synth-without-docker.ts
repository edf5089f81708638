import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STACK_NAME } from '#contracts/stack-outputs';
import { PROJECT_ROOT } from '#lib/project-root';
import { TEST_CONTEXT } from './service-stack.ts';

/** A Docker image the synthesized assets manifest stages for `cdk deploy` to build. */
export interface StagedImage {
  readonly source: { readonly directory: string; readonly dockerFile: string; readonly platform: string };
}

export interface SynthWithoutDocker {
  readonly result: SpawnSyncReturns<string>;
  readonly outdir: string;
  /** Whether anything ran docker (the fake records every call). */
  readonly dockerRan: () => boolean;
  readonly images: readonly StagedImage[];
  readonly cleanUp: () => void;
}

/**
 * Synthesizes the app as `cdk synth` does (bin/app.ts with the test context and `context`), with a docker that
 * records its arguments and fails, found first on PATH and named by CDK_DOCKER (the executable the CDK runs for
 * docker): synthesis must never run it.
 */
export function synthWithoutDocker(context: Readonly<Record<string, string>>): SynthWithoutDocker {
  const outdir = mkdtempSync(join(tmpdir(), 'synth-'));
  const fakes = mkdtempSync(join(tmpdir(), 'synth-docker-'));
  const calls = join(fakes, 'calls.log');
  const fakeDocker = join(fakes, 'docker');
  writeFileSync(fakeDocker, `#!/bin/sh\necho "$@" >> "${calls}"\nexit 1\n`);
  chmodSync(fakeDocker, 0o755);
  const result = spawnSync(join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx'), ['bin/app.ts'], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
    env: {
      ...process.env,
      PATH: `${fakes}:${process.env.PATH}`,
      CDK_DOCKER: fakeDocker,
      CDK_OUTDIR: outdir,
      CDK_CONTEXT_JSON: JSON.stringify({ ...TEST_CONTEXT, ...context }),
    },
  });
  const manifestFile = join(outdir, `${STACK_NAME}.assets.json`);
  const manifest = existsSync(manifestFile) ? JSON.parse(readFileSync(manifestFile, 'utf8')) : {};
  return {
    result,
    outdir,
    dockerRan: () => existsSync(calls),
    images: Object.values(manifest.dockerImages ?? {}) as StagedImage[],
    cleanUp: () => {
      rmSync(outdir, { recursive: true, force: true });
      rmSync(fakes, { recursive: true, force: true });
    },
  };
}
