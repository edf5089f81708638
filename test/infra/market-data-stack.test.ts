import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Token } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { REST_BASE_PATH, REST_ROUTES } from '#contracts/routes';
import { STACK_NAME, STACK_OUTPUTS, tableOutputName } from '#contracts/stack-outputs';
import { TABLE_IDS } from '#contracts/tables';
import { INGEST_CONSUMER_STACK_OUTPUTS } from '#lib/constructs/ingest-consumer';
import { INGEST_CONTEXT, MarketDataStack, WAF_CONTEXT, WEB_SOCKET_CONTEXT } from '#lib/market-data-stack';
import { PROJECT_ROOT } from '#lib/project-root';
import { nagFindingsOf } from './support/cdk-nag.ts';
import { synthServiceStack, TEST_CONTEXT, testApp } from './support/service-stack.ts';
import { logicalIdOf } from './support/template.ts';

const { stack, template } = synthServiceStack();

describe('MarketDataStack outputs', () => {
  it('publishes the REST base URL including the versioned prefix', () => {
    template.hasOutput(STACK_OUTPUTS.restApiUrl, {
      Value: { 'Fn::Join': ['', Match.arrayWith([{ Ref: logicalIdOf(stack.restApi.api) }, REST_BASE_PATH])] },
    });
  });

  it('publishes the REST API id and the usage plan id for the key CLI', () => {
    template.hasOutput(STACK_OUTPUTS.restApiId, { Value: { Ref: logicalIdOf(stack.restApi.api) } });
    template.hasOutput(STACK_OUTPUTS.usagePlanId, { Value: { Ref: logicalIdOf(stack.restApi.usagePlan) } });
  });

  it('publishes the trade stream name for `npm run replay -- --stack`', () => {
    template.hasOutput(STACK_OUTPUTS.tradeStreamName, {
      Value: { Ref: logicalIdOf(stack.ingestion.stream) },
    });
  });

  it('publishes the trades dead-letter queue URL for `npm run redrive -- --stack`', () => {
    template.hasOutput(STACK_OUTPUTS.tradeDeadLetterQueueUrl, {
      Value: { Ref: logicalIdOf(stack.ingestion.deadLetterQueue) },
    });
  });

  it.each(TABLE_IDS)('publishes the name of the %s table', (tableId) => {
    template.hasOutput(tableOutputName(tableId), { Value: { Ref: logicalIdOf(stack.data.tables[tableId]) } });
  });

  it('publishes every output of the stack-outputs contract but the optional console, and nothing else', () => {
    // ConsoleUrl comes with -c console=true only (test/infra/console-site.test.ts).
    const always = Object.values(STACK_OUTPUTS).filter((name) => name !== STACK_OUTPUTS.consoleUrl);
    expect(Object.keys(template.toJSON().Outputs).sort()).toEqual(
      [...always, ...TABLE_IDS.map(tableOutputName), ...Object.values(INGEST_CONSUMER_STACK_OUTPUTS)].sort(),
    );
  });
});

describe('MarketDataStack', () => {
  it('is environment-agnostic, so it synthesizes offline with no account or region', () => {
    expect(Token.isUnresolved(stack.account)).toBe(true);
    expect(Token.isUnresolved(stack.region)).toBe(true);
  });

  it('passes the cdk-nag AwsSolutions checks, every finding fixed or acknowledged with a reason', () => {
    expect(nagFindingsOf(stack)).toEqual([]);
  });
});

describe('MarketDataStack with -c webSocket=false -c waf=false -c ingest=lambda (LocalStack free plan, as deploy:local)', () => {
  const stack = new MarketDataStack(
    testApp({ [WEB_SOCKET_CONTEXT]: 'false', [WAF_CONTEXT]: 'false', [INGEST_CONTEXT]: 'lambda' }),
    STACK_NAME,
  );
  const resources = Template.fromStack(stack).toJSON().Resources as Record<string, { Type: string }>;

  it('leaves out every API Gateway V2 resource, the fan-out and the heartbeat', () => {
    expect(Object.values(resources).filter(({ Type }) => Type.startsWith('AWS::ApiGatewayV2::'))).toEqual([]);
    expect(
      Object.values(resources).filter(({ Type }) => Type === 'AWS::Lambda::EventSourceMapping'),
    ).toHaveLength(1);
    expect([stack.webSocketApi, stack.fanOut, stack.heartbeat]).toEqual([undefined, undefined, undefined]);
  });

  it('leaves out the WAF web ACL, cdk-nag accepting it with a reason', () => {
    expect(Object.values(resources).filter(({ Type }) => Type.startsWith('AWS::WAFv2::'))).toEqual([]);
    expect(stack.restApi.webAcl).toBeUndefined();
    expect(nagFindingsOf(stack)).toEqual([]);
  });

  it('keeps the REST API, ingestion, the clock tick and every table, with no WebSocket outputs', () => {
    expect(Object.values(resources).filter(({ Type }) => Type === 'AWS::ApiGateway::RestApi')).toHaveLength(
      1,
    );
    expect(Object.values(resources).filter(({ Type }) => Type === 'AWS::DynamoDB::Table')).toHaveLength(
      TABLE_IDS.length,
    );
    const outputs = Object.keys(Template.fromStack(stack).toJSON().Outputs);
    expect(outputs).not.toContain(STACK_OUTPUTS.webSocketUrl);
    expect(outputs).toContain(STACK_OUTPUTS.restApiUrl);
    expect(nagFindingsOf(stack)).toEqual([]);
  });
});

describe('bin/app.ts', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'market-data-synth-'));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('synthesizes the MarketDataAlerts stack with cdk-nag applied and no findings', () => {
    // The same environment the CDK CLI gives the app; CDK_OUTDIR makes the App synthesize on exit.
    const result = spawnSync(join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx'), ['bin/app.ts'], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
      env: { ...process.env, CDK_OUTDIR: outdir, CDK_CONTEXT_JSON: JSON.stringify(TEST_CONTEXT) },
    });

    expect(result.stderr).not.toMatch(/AwsSolutions/);
    expect(result.status).toBe(0);
    const templatePath = join(outdir, `${STACK_NAME}.template.json`);
    expect(existsSync(templatePath)).toBe(true);
    const resources = Object.values(JSON.parse(readFileSync(templatePath, 'utf8')).Resources) as {
      Type: string;
    }[];
    expect(resources.filter((resource) => resource.Type === 'AWS::ApiGateway::Method')).toHaveLength(
      REST_ROUTES.length,
    );
  });
});
