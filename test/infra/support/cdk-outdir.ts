import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The infra tier's one cloud assembly directory (test/infra/support/service-stack.ts). */
    cdkOutdir: string;
  }
}

/**
 * The infra tier's globalSetup (vitest.config.ts): one cloud assembly directory for the whole run, removed
 * after it. An App without an outdir makes a new temporary directory at every synthesis and leaves it behind;
 * the stacks outlive each test file (they are synthesized once per worker), so the directory does too.
 */
export default function setup(project: TestProject): () => void {
  const outdir = mkdtempSync(join(tmpdir(), 'mda-cdk-test-'));
  project.provide('cdkOutdir', outdir);
  return () => rmSync(outdir, { recursive: true, force: true });
}
