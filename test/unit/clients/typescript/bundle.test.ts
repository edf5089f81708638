import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

/** The web console bundles the client with esbuild for browsers: nothing Node-only may be reached. */
describe('the client bundled for a browser', () => {
  it('bundles with esbuild for the browser platform, with no Node module in it', async () => {
    const result = await build({
      entryPoints: ['clients/typescript/src/index.ts'],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      logLevel: 'silent',
    });
    expect(result.errors).toEqual([]);
    const code = result.outputFiles[0]?.text ?? '';
    expect(code).toContain('createClient');
    expect(code).not.toMatch(/from\s+["']node:|require\(["']node:/);
  });
});
