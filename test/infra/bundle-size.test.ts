import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { REST_ROUTES } from '#contracts/routes';
import { LAMBDA_ESBUILD_OPTIONS, REST_BUNDLE_BUDGET_BYTES } from '#lib/bundling';
import { PROJECT_ROOT } from '#lib/project-root';

/**
 * Each REST handler bundled as `cdk deploy` bundles it (lib/bundling.ts), in memory: its size against the
 * budget, and the libraries it must not carry (docs/adr/0013-lean-lambda-bundles.md). Timings are the
 * benchmark's (`npm run bench -- cold-import`), never a test's.
 */
async function bundleOf(entry: string) {
  const result = await build({
    ...LAMBDA_ESBUILD_OPTIONS,
    external: [...LAMBDA_ESBUILD_OPTIONS.external],
    mainFields: [...LAMBDA_ESBUILD_OPTIONS.mainFields],
    entryPoints: [entry],
    absWorkingDir: PROJECT_ROOT,
    outdir: 'out',
    write: false,
    metafile: true,
    logLevel: 'error',
  });
  const output = Object.values(result.metafile.outputs).find((candidate) => candidate.entryPoint);
  if (!output) throw new Error(`esbuild wrote no bundle for ${entry}`);
  return { bytes: output.bytes, inputs: Object.keys(output.inputs) };
}

const NOT_IN_REST_BUNDLES = [
  'node_modules/aws-xray-sdk-core/',
  'node_modules/@aws-lambda-powertools/tracer/',
  'node_modules/@aws-lambda-powertools/metrics/',
  'node_modules/zod/v4/classic/',
  'node_modules/@smithy/core/dist-es/submodules/event-streams/',
];

describe('REST handler bundles', () => {
  it.each(REST_ROUTES.map((route) => [route.id, route.handler]))(
    '%s stays within the REST bundle budget and carries no tracer, EMF library or classic zod',
    async (_id, handler) => {
      const { bytes, inputs } = await bundleOf(handler);
      expect(bytes).toBeLessThanOrEqual(REST_BUNDLE_BUDGET_BYTES);
      for (const excluded of NOT_IN_REST_BUNDLES) {
        expect(inputs.filter((input) => input.includes(excluded))).toEqual([]);
      }
    },
  );
});
