import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import {
  CONTAINER_ESBUILD_OPTIONS,
  DEVELOPER_ONLY_CREDENTIAL_PROVIDERS,
  LAMBDA_BUNDLING,
  LAMBDA_ESBUILD_OPTIONS,
  UNUSED_SDK_CAPABILITIES,
} from '#lib/bundling';
import { PROJECT_ROOT } from '#lib/project-root';

/**
 * What lib/bundling.ts's externals rely on, checked against the installed packages rather than described in
 * comments that name their internal files: the packages left out of a Lambda bundle are reached only through
 * a dynamic `import()` (so leaving them unresolved changes nothing until that import runs), while the
 * environment-variable credentials that Lambda uses and the container credentials stay bundled. An SDK
 * upgrade that imports one of them statically fails here, not on Lambda.
 */

/** A handler whose bundle holds the clients of DynamoDB, API Gateway and SQS. */
const ENTRY = 'functions/handlers/stream/fan-out.ts';

async function metafileOf(options: { external: string[] }): Promise<Metafile> {
  const result = await build({
    ...LAMBDA_ESBUILD_OPTIONS,
    mainFields: [...LAMBDA_ESBUILD_OPTIONS.mainFields],
    ...options,
    entryPoints: [ENTRY],
    absWorkingDir: PROJECT_ROOT,
    outdir: 'out',
    write: false,
    metafile: true,
    logLevel: 'error',
  });
  return result.metafile;
}

/** The inputs reached from the entry through static imports and `require()` only. */
function staticallyReached(metafile: Metafile): Set<string> {
  const reached = new Set<string>([ENTRY]);
  const queue = [ENTRY];
  for (let input = queue.pop(); input !== undefined; input = queue.pop()) {
    for (const { path, kind } of metafile.inputs[input]?.imports ?? []) {
      if (kind === 'dynamic-import' || reached.has(path) || !(path in metafile.inputs)) continue;
      reached.add(path);
      queue.push(path);
    }
  }
  return reached;
}

const inPackage = (inputs: Iterable<string>, name: string) =>
  [...inputs].filter((input) => input.includes(`node_modules/${name}/`));

describe('lib/bundling.ts', () => {
  it('leaves out only what a Lambda bundle reaches through a dynamic import()', async () => {
    const everything = await metafileOf({ external: [] });
    const reached = staticallyReached(everything);

    for (const name of DEVELOPER_ONLY_CREDENTIAL_PROVIDERS) {
      expect(inPackage(Object.keys(everything.inputs), name), `${name} is in the chain`).not.toEqual([]);
      expect(inPackage(reached, name), `${name} is imported statically`).toEqual([]);
    }
    const eventStreams = Object.keys(everything.inputs).filter((input) =>
      input.includes('node_modules/@smithy/core/dist-es/submodules/event-streams/'),
    );
    expect(eventStreams).not.toEqual([]);
    expect(eventStreams.filter((input) => reached.has(input))).toEqual([]);
  });

  it('keeps the credentials Lambda and ECS use: environment variables statically, the container endpoint', async () => {
    const lambda = await metafileOf({ external: [...LAMBDA_ESBUILD_OPTIONS.external] });

    expect(inPackage(staticallyReached(lambda), '@aws-sdk/credential-provider-env')).not.toEqual([]);
    for (const name of ['@aws-sdk/credential-provider-http', '@smithy/credential-provider-imds']) {
      expect(inPackage(Object.keys(lambda.inputs), name), name).not.toEqual([]);
    }
    for (const name of [...DEVELOPER_ONLY_CREDENTIAL_PROVIDERS, ...UNUSED_SDK_CAPABILITIES]) {
      expect(inPackage(Object.keys(lambda.inputs), name), name).toEqual([]);
    }
  });

  it('gives the CDK the same externals as esbuild (they replace its default, which would leave out the SDK)', () => {
    expect(LAMBDA_BUNDLING.externalModules).toEqual([...LAMBDA_ESBUILD_OPTIONS.external]);
    expect(LAMBDA_BUNDLING.bundleAwsSDK).toBe(true);
    expect('external' in CONTAINER_ESBUILD_OPTIONS).toBe(false);
  });
});
