import { type BundlingOptions, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions } from 'esbuild';

/**
 * How every Lambda bundle is built, in one place: `LAMBDA_ESBUILD_OPTIONS` are the settings as esbuild's
 * `build()` API takes them (scripts/bench/cold-import.ts bundles with exactly these), and `LAMBDA_BUNDLING`
 * is the CDK's `NodejsFunction` form of the same settings, derived field by field from them, so what the
 * benchmark measures is what `cdk deploy` ships.
 */

/** The esbuild target of every bundle; it follows the Lambda runtime of lib/constructs/service-function.ts. */
export const NODE_TARGET = 'node24';

/**
 * The AWS SDK credential providers that can never run on Lambda, left out of every Lambda bundle.
 *
 * Why: a client built without explicit credentials resolves them through the SDK's default chain. On
 * Lambda its first link, the environment variables (which Lambda always sets from the execution role),
 * answers, and the later links (profiles, SSO, `aws login`, credential processes, web identity token files)
 * serve developer machines only. The SDK loads those later links with dynamic `import()`s, so left
 * unresolved they cost nothing until that import runs, which on Lambda it never does; bundled, they weigh
 * every cold start. The container-credentials link stays bundled: ECS needs it.
 *
 * Pinned by test/infra/bundling.test.ts: each package below is reached from a bundle through dynamic
 * imports only, the environment-variable link statically, and the container link is kept.
 */
export const DEVELOPER_ONLY_CREDENTIAL_PROVIDERS = [
  '@aws-sdk/credential-provider-ini',
  '@aws-sdk/credential-provider-sso',
  '@aws-sdk/credential-provider-process',
  '@aws-sdk/credential-provider-web-identity',
  '@aws-sdk/credential-provider-login',
  '@aws-sdk/token-providers',
  '@aws-sdk/nested-clients',
] as const;

/**
 * Smithy's event-stream serde, which no operation the functions call uses.
 *
 * Why: only operations with an event-stream member (Kinesis SubscribeToShard, S3 SelectObjectContent, ...)
 * need it, and the SDK loads it with a dynamic `import()` when one runs. The functions call DynamoDB, SQS,
 * API Gateway (usage plans) and the `@connections` API, none of which has one; left out, it saves about
 * 15 KB in every bundle. Pinned by test/infra/bundling.test.ts (reached through a dynamic import only).
 */
export const UNUSED_SDK_CAPABILITIES = ['@smithy/core/event-streams'] as const;

/** Bundled CommonJS dependencies still call `require` for Node built-ins, which ESM does not define. */
const CREATE_REQUIRE_BANNER =
  "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/**
 * The esbuild settings of a Lambda bundle, as `build()` takes them (with `entryPoints`, `outfile` or
 * `outdir`, and `absWorkingDir` added by the caller). `bundle` and `platform` are what the CDK always
 * passes (`--bundle`, `--platform=node`); the rest maps onto `LAMBDA_BUNDLING` below.
 *
 * The AWS SDK is bundled rather than taken from the runtime, so the version we test is the version we run
 * (middy's and Powertools' advice), except the credential providers above.
 */
export const LAMBDA_ESBUILD_OPTIONS = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: NODE_TARGET,
  minify: true,
  sourcemap: true,
  // Node only needs the mappings for stack traces; the sources would double the asset for nothing.
  sourcesContent: false,
  // Prefer the ES module build of dependencies (better tree shaking), falling back to CommonJS.
  mainFields: ['module', 'main'],
  banner: { js: CREATE_REQUIRE_BANNER },
  external: [...DEVELOPER_ONLY_CREDENTIAL_PROVIDERS, ...UNUSED_SDK_CAPABILITIES],
} as const satisfies BuildOptions;

/**
 * The most a REST handler's bundle may weigh (1 KB = 1,000 bytes): module loading is cold-start time a partner
 * waits for (docs/adr/0013-lean-lambda-bundles.md). test/infra/bundle-size.test.ts holds every REST handler
 * to it, and `npm run bench -- cold-import` reports against it.
 */
export const REST_BUNDLE_BUDGET_BYTES = 300_000;

/** The file the CDK writes an ESM bundle to (and the benchmark imports). */
export const BUNDLE_FILE = 'index.mjs';

/**
 * `LAMBDA_ESBUILD_OPTIONS` as the CDK's `NodejsFunction` bundling options: esbuild on the local machine
 * (never Docker).
 *
 * `externalModules`, once given, replaces the CDK's default externals (which would leave the AWS SDK out of
 * the bundle), so the list below is the whole of what stays out; `bundleAwsSDK: true` states the intent and
 * keeps the SDK bundled should the list ever be removed. Pinned by test/infra/bundling.test.ts.
 */
export const LAMBDA_BUNDLING: BundlingOptions = {
  forceDockerBundling: false,
  format: LAMBDA_ESBUILD_OPTIONS.format === 'esm' ? OutputFormat.ESM : OutputFormat.CJS,
  target: LAMBDA_ESBUILD_OPTIONS.target,
  minify: LAMBDA_ESBUILD_OPTIONS.minify,
  sourceMap: LAMBDA_ESBUILD_OPTIONS.sourcemap,
  sourcesContent: LAMBDA_ESBUILD_OPTIONS.sourcesContent,
  bundleAwsSDK: true,
  externalModules: [...LAMBDA_ESBUILD_OPTIONS.external],
  mainFields: [...LAMBDA_ESBUILD_OPTIONS.mainFields],
  banner: LAMBDA_ESBUILD_OPTIONS.banner.js,
};

/**
 * The esbuild settings of a container bundle (the feed connector's image,
 * functions/containers/feed-connector.Dockerfile): those of a Lambda bundle with nothing external. A
 * container has no node_modules, and on ECS the credential chain does reach the developer links above: ECS
 * gives the task role's credentials through the container credentials endpoint, not variables, so the chain
 * tries the profile link first, whose `import()` must then resolve.
 */
const { external: _lambdaExternals, ...LAMBDA_OPTIONS_WITHOUT_EXTERNALS } = LAMBDA_ESBUILD_OPTIONS;
export const CONTAINER_ESBUILD_OPTIONS = {
  ...LAMBDA_OPTIONS_WITHOUT_EXTERNALS,
  // Bundle metadata for the check that the output imports nothing but Node's built-ins.
  metafile: true,
} as const satisfies BuildOptions;
