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
 * The AWS SDK credential providers that can never run on Lambda, left out of every bundle.
 *
 * Every client built without explicit credentials resolves them through the default chain of
 * @aws-sdk/credential-provider-node (dist-es/defaultProvider.js). Its first link is `fromEnv`
 * (@aws-sdk/credential-provider-env, imported statically, so bundled): it reads AWS_ACCESS_KEY_ID,
 * AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, which Lambda always sets from the execution role (the link
 * is skipped only when AWS_PROFILE is set, which the service never does). Every later link is reached
 * only when that one fails, and loads its provider with a dynamic `import()`:
 *
 * - fromSSO: `import('@aws-sdk/credential-provider-sso')`, which statically imports
 *   @aws-sdk/token-providers and @aws-sdk/nested-clients/sso (token-providers imports
 *   nested-clients/sso-oidc dynamically);
 * - fromIni: `import('@aws-sdk/credential-provider-ini')`, which imports dynamically the SSO, process,
 *   web-identity and @aws-sdk/credential-provider-login providers and @aws-sdk/nested-clients/sts
 *   (credential-provider-login imports nested-clients/signin dynamically);
 * - fromProcess: `import('@aws-sdk/credential-provider-process')`;
 * - fromTokenFile: `import('@aws-sdk/credential-provider-web-identity')` (it imports nested-clients/sts
 *   dynamically);
 * - remoteProvider (dist-es/remoteProvider.js): `import('@smithy/credential-provider-imds')` and, when a
 *   container credentials URI is set, `import('@aws-sdk/credential-provider-http')`.
 *
 * Nothing else in node_modules that a bundle can reach (nor functions/) imports the packages below. They
 * serve developer machines (profiles, SSO, `aws login`, credential processes, web identity token files),
 * so marking them external removes them from the bundles without changing what runs on Lambda: the
 * `import()` calls stay in the bundle, unresolved, and are never executed while the environment holds
 * credentials. The last link stays bundled on purpose: container credentials
 * (@aws-sdk/credential-provider-http, @smithy/credential-provider-imds).
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
 * @smithy/core's HttpProtocol (dist-es/submodules/protocols/HttpProtocol.js) loads it with
 * `import("@smithy/core/event-streams")` in `loadEventStreamCapability`, reached only from
 * `serializeEventStream` and `deserializeEventStream`: the operations with an event-stream member
 * (Kinesis SubscribeToShard, Bedrock streaming, S3 SelectObjectContent, ...). The functions call DynamoDB,
 * SQS, API Gateway (usage plans) and the `@connections` API, none of which has one, so the `import()` stays
 * in the bundle, unresolved, and never runs; left out, it saves about 15 KB in every bundle.
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
 * In aws-cdk-lib's aws-lambda-nodejs/lib/bundling.js the externals are
 * `props.externalModules ?? defaultExternals`, where `defaultExternals` is `[]` when `bundleAwsSDK` is true
 * and `@aws-sdk/*` (with the feature flag also `@smithy/*`) otherwise: `externalModules`, once given,
 * replaces the default outright, so the list below is the whole of what stays out. `bundleAwsSDK: true`
 * states the intent and keeps the SDK bundled should the list ever be removed.
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
 * container has no node_modules, and on ECS the credential chain does reach the links above: `fromEnv` fails
 * (ECS gives the task role's credentials through the container credentials endpoint, not variables), so the
 * chain goes on to `fromIni`, whose `import()` must then resolve.
 */
const { external: _lambdaExternals, ...LAMBDA_OPTIONS_WITHOUT_EXTERNALS } = LAMBDA_ESBUILD_OPTIONS;
export const CONTAINER_ESBUILD_OPTIONS = {
  ...LAMBDA_OPTIONS_WITHOUT_EXTERNALS,
  // Bundle metadata for the check that the output imports nothing but Node's built-ins.
  metafile: true,
} as const satisfies BuildOptions;
