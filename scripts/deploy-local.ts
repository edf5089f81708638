/**
 * `npm run deploy:local`: deploys the MarketDataAlerts stack, unchanged, to a running LocalStack.
 *
 *   LOCALSTACK_ENDPOINT     LocalStack's edge endpoint (default http://localhost:4566)
 *   LOCALSTACK_S3_ENDPOINT  S3 endpoint for asset uploads; required when LocalStack runs elsewhere. For a
 *                           local LocalStack it defaults to s3.localhost.localstack.cloud on the same
 *                           protocol and port: a public DNS name for 127.0.0.1 whose subdomains resolve too,
 *                           which the CDK's virtual-hosted-style bucket addresses need (`bucket.localhost`
 *                           does not resolve for the CDK, per LocalStack's cdklocal)
 *   LOCALSTACK_REGION       region to deploy to (default us-east-1)
 *   LOCALSTACK_WEBSOCKET    1 to deploy the WebSocket API, fan-out and heartbeat too: they need API Gateway V2,
 *                           which LocalStack has from its Base plan only; by default they are left out
 *                           (`-c webSocket=false`) and the REST API, ingestion and tables deploy on the free plan
 *   Extra arguments go to `cdk deploy`, e.g. `npm run deploy:local -- --hotswap`.
 *
 * This does what LocalStack's `cdklocal` wrapper does for aws-cdk >= 2.177 (localstack/aws-cdk-local,
 * src/index.js), without adding it as a dependency: the CDK CLI's AWS SDK v3 honours AWS_ENDPOINT_URL and
 * AWS_ENDPOINT_URL_S3, so the stock CLI deploys to LocalStack once they are set. Every other AWS_* variable
 * is dropped and dummy credentials are set, so a profile or real keys in the shell can never send this
 * deployment to a real account. It bootstraps first (idempotent), then deploys without approval prompts.
 */
import { spawnSync } from 'node:child_process';
import { STACK_NAME } from '#contracts/stack-outputs';
import { answerHelp } from './lib/cli.ts';

answerHelp(import.meta.url);

const endpoint = new URL(process.env.LOCALSTACK_ENDPOINT ?? 'http://localhost:4566');
const port = endpoint.port ? `:${endpoint.port}` : '';
const isLocalMachine = ['localhost', '127.0.0.1', 'localhost.localstack.cloud'].includes(endpoint.hostname);
const s3Endpoint =
  process.env.LOCALSTACK_S3_ENDPOINT ??
  (isLocalMachine ? `${endpoint.protocol}//s3.localhost.localstack.cloud${port}` : undefined);
if (s3Endpoint === undefined) {
  console.error(
    `LocalStack at ${endpoint.origin} is not on this machine: set LOCALSTACK_S3_ENDPOINT as well.`,
  );
  process.exit(2);
}
const region = process.env.LOCALSTACK_REGION ?? 'us-east-1';

const inheritedWithoutAws = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_')),
);
const env: NodeJS.ProcessEnv = {
  ...inheritedWithoutAws,
  AWS_ENDPOINT_URL: endpoint.origin,
  AWS_ENDPOINT_URL_S3: s3Endpoint,
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
  AWS_REGION: region,
  AWS_DEFAULT_REGION: region,
};

function cdk(args: readonly string[]): void {
  console.log(`> cdk ${args.join(' ')}   (LocalStack at ${endpoint.origin})`);
  const result = spawnSync('npx', ['cdk', ...args], { stdio: 'inherit', env });
  if (result.status !== 0) {
    process.exit(result.status ?? 1);
  }
}

const webSocket = process.env.LOCALSTACK_WEBSOCKET === '1' ? [] : ['--context', 'webSocket=false'];
cdk(['bootstrap']);
// LocalStack has no WAF, and Application Auto Scaling and ECS only in its paid images: the REST stage goes
// without its web ACL there, the tables on demand, and the trades are ingested by the ingest Lambda instead of
// the windowed consumer's Fargate service. Its event source mappings cannot read through a Kinesis consumer
// (localstack/localstack#10605): the ingest polls the stream there.
cdk([
  'deploy',
  STACK_NAME,
  '--require-approval',
  'never',
  '--context',
  'waf=false',
  '--context',
  'sessionCapacity=false',
  '--context',
  'ingest=lambda',
  '--context',
  'enhancedFanOut=false',
  ...webSocket,
  ...process.argv.slice(2),
]);
