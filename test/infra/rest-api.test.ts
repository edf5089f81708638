import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { bodyTemplate, GATEWAY_RESPONSES, RETRY_AFTER_SECONDS } from '#contracts/gateway-responses';
import { CLIENT_ERROR_LOG, METRICS, METRICS_NAMESPACE } from '#contracts/metrics';
import { REST_ROUTES, resourcePath } from '#contracts/routes';
import { AUTH_CACHE_TTL_SECONDS } from '#contracts/runtime-settings';
import { REST_THROTTLE, STAGE_THROTTLE, WAF_REQUESTS_PER_IP_PER_5_MINUTES } from '#contracts/throttling';
import { REST_STAGE_NAME } from '#lib/constructs/rest-api';
import { WAF_CONTEXT } from '#lib/market-data-stack';
import { synthServiceStack } from './support/service-stack.ts';
import {
  apiResourcePath,
  expectInvokePermission,
  invocationUriOf,
  logicalIdOf,
  onlyResourceOfType,
  resourceOf,
  resourcesOfType,
  templateOfResource,
} from './support/template.ts';

const { stack, template } = synthServiceStack();
const restApi = stack.restApi;
const restApiId = logicalIdOf(restApi.api);
const stageId = logicalIdOf(restApi.api.deploymentStage);

const authorizerId = onlyResourceOfType(template, 'AWS::ApiGateway::Authorizer');

describe('PartnerRestApi routes', () => {
  it('has exactly one method per route of REST_ROUTES', () => {
    template.resourceCountIs('AWS::ApiGateway::Method', REST_ROUTES.length);
  });

  it.each(REST_ROUTES)(
    '$method $path: under the base path, behind the authorizer, proxied to $id',
    (route) => {
      const methods = resourcesOfType(template, 'AWS::ApiGateway::Method').filter(
        ([, method]) =>
          method.Properties.HttpMethod === route.method &&
          apiResourcePath(template, method.Properties.ResourceId) === resourcePath(route),
      );
      expect(methods, `${route.method} ${resourcePath(route)}`).toHaveLength(1);
      const [methodId] = methods[0] as [string, unknown];
      const functionId = logicalIdOf(restApi.routeFunctions[route.id].lambda);

      templateOfResource(template, methodId).hasResourceProperties('AWS::ApiGateway::Method', {
        RestApiId: { Ref: restApiId },
        AuthorizationType: 'CUSTOM',
        AuthorizerId: { Ref: authorizerId },
        ApiKeyRequired: true,
        Integration: {
          Type: 'AWS_PROXY',
          IntegrationHttpMethod: 'POST',
          Uri: invocationUriOf(functionId),
        },
      });
    },
  );

  it.each(REST_ROUTES)('$id may be invoked by API Gateway for its own method only', (route) => {
    const functionId = logicalIdOf(restApi.routeFunctions[route.id].lambda);
    const methodArnPath = `/${route.method}${resourcePath(route).replace(/\{[^}]+\}/g, '*')}`;
    expectInvokePermission(template, functionId, 'apigateway.amazonaws.com', [
      { Ref: stageId },
      methodArnPath,
    ]);
  });
});

describe('PartnerRestApi authorizer', () => {
  const authorizerFunctionId = logicalIdOf(restApi.authorizerFunction.lambda);

  // The decision: docs/architecture.md#rest-api-api-gateway-rest-api-v1-not-an-http-api
  it('is a REQUEST authorizer with no identity source and no API Gateway cache', () => {
    templateOfResource(template, authorizerId).hasResourceProperties('AWS::ApiGateway::Authorizer', {
      RestApiId: { Ref: restApiId },
      Type: 'REQUEST',
      AuthorizerResultTtlInSeconds: 0,
      IdentitySource: Match.absent(),
      AuthorizerUri: invocationUriOf(authorizerFunctionId),
    });
  });

  it('keeps its own short in-memory cache instead', () => {
    templateOfResource(template, authorizerFunctionId).hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({ AUTH_CACHE_TTL_SECONDS: String(AUTH_CACHE_TTL_SECONDS) }),
      },
    });
  });

  it('may be invoked by API Gateway as this API’s authorizer', () => {
    expectInvokePermission(template, authorizerFunctionId, 'apigateway.amazonaws.com', [
      '/authorizers/',
      { Ref: authorizerId },
    ]);
  });
});

describe('PartnerRestApi gateway responses', () => {
  const gatewayResponseOf = (type: string) => {
    const matches = resourcesOfType(template, 'AWS::ApiGateway::GatewayResponse').filter(
      ([, response]) => response.Properties.ResponseType === type,
    );
    expect(matches, type).toHaveLength(1);
    return (matches[0] as [string, { Properties: Record<string, unknown> }])[1].Properties;
  };

  /** Renders API Gateway's `$context` variables as sample strings, so the template parses as JSON. */
  const renderWithSampleContext = (template: string): unknown =>
    JSON.parse(
      template.replace(/"\$context\.[\w.]+"/g, '"sample"').replace(/\$context\.[\w.]+/g, '"sample"'),
    );

  it('registers one gateway response per entry of GATEWAY_RESPONSES', () => {
    template.resourceCountIs('AWS::ApiGateway::GatewayResponse', GATEWAY_RESPONSES.length);
  });

  it.each(GATEWAY_RESPONSES)('$type answers with its status and the error envelope', (response) => {
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      RestApiId: { Ref: restApiId },
      ResponseType: response.type,
      StatusCode: response.statusCode === undefined ? Match.absent() : String(response.statusCode),
      ResponseTemplates: { 'application/json': bodyTemplate(response) },
    });

    const body = gatewayResponseOf(response.type).ResponseTemplates as Record<string, string>;
    expect(renderWithSampleContext(body['application/json'] ?? '')).toEqual({
      error: { code: response.code.literal ?? 'sample', message: response.message.literal ?? 'sample' },
    });
  });

  it.each(GATEWAY_RESPONSES)('$type sends JSON and exactly its contract headers', (response) => {
    const expected = Object.fromEntries(
      Object.entries({ 'Content-Type': 'application/json', ...response.headers }).map(([name, value]) => [
        `gatewayresponse.header.${name}`,
        `'${value}'`,
      ]),
    );
    expect(gatewayResponseOf(response.type).ResponseParameters).toEqual(expected);
  });

  it('THROTTLED answers 429 and tells the client when to retry', () => {
    const throttled = gatewayResponseOf('THROTTLED');
    expect(throttled.StatusCode).toBe('429');
    expect(throttled.ResponseParameters).toMatchObject({
      'gatewayresponse.header.Retry-After': `'${RETRY_AFTER_SECONDS}'`,
    });
  });
});

describe('PartnerRestApi API, stage and usage plan', () => {
  it('takes the usage-plan key from the authorizer', () => {
    templateOfResource(template, restApiId).hasResourceProperties('AWS::ApiGateway::RestApi', {
      ApiKeySourceType: 'AUTHORIZER',
      EndpointConfiguration: { Types: ['REGIONAL'] },
    });
  });

  it(`deploys the "${REST_STAGE_NAME}" stage with access logs, metrics and tracing`, () => {
    const stage = resourceOf(template, stageId);
    templateOfResource(template, stageId).hasResourceProperties('AWS::ApiGateway::Stage', {
      RestApiId: { Ref: restApiId },
      StageName: REST_STAGE_NAME,
      TracingEnabled: true,
      AccessLogSetting: { DestinationArn: { 'Fn::GetAtt': [Match.anyValue(), 'Arn'] } },
      MethodSettings: [Match.objectLike({ HttpMethod: '*', ResourcePath: '/*', MetricsEnabled: true })],
    });
    const accessLogGroupId = stage.Properties.AccessLogSetting.DestinationArn['Fn::GetAtt'][0];
    templateOfResource(template, accessLogGroupId).hasResourceProperties('AWS::Logs::LogGroup', {
      RetentionInDays: 30,
    });
  });

  it('never writes the partner’s key to the access log', () => {
    const format: string = resourceOf(template, stageId).Properties.AccessLogSetting.Format;
    expect(JSON.parse(format)).toBeTypeOf('object');
    expect(format).not.toContain('$context.identity.apiKey');
  });

  it('does not manage the account-wide API Gateway CloudWatch role', () => {
    template.resourceCountIs('AWS::ApiGateway::Account', 0);
  });

  it('throttles each key of the usage plan at REST_THROTTLE on the live stage', () => {
    template.resourceCountIs('AWS::ApiGateway::UsagePlan', 1);
    template.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
      Throttle: { RateLimit: REST_THROTTLE.rateLimit, BurstLimit: REST_THROTTLE.burstLimit },
      ApiStages: [Match.objectLike({ ApiId: { Ref: restApiId }, Stage: { Ref: stageId } })],
    });
  });
});

describe('PartnerRestApi limits over all callers', () => {
  it('throttles every method of the stage, keyed or not', () => {
    templateOfResource(template, stageId).hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: Match.arrayWith([
        Match.objectLike({
          HttpMethod: '*',
          ResourcePath: '/*',
          ThrottlingRateLimit: STAGE_THROTTLE.rateLimit,
          ThrottlingBurstLimit: STAGE_THROTTLE.burstLimit,
        }),
      ]),
    });
    expect(STAGE_THROTTLE.rateLimit).toBeGreaterThan(REST_THROTTLE.rateLimit);
  });

  it('puts a WAF web ACL on the stage that answers an IP over its rate with 429 and the envelope', () => {
    const webAclId = onlyResourceOfType(template, 'AWS::WAFv2::WebACL');
    const webAcl = resourceOf(template, webAclId).Properties;
    expect(webAcl.Scope).toBe('REGIONAL');
    expect(webAcl.DefaultAction).toEqual({ Allow: {} });
    expect(webAcl.Rules).toEqual([
      expect.objectContaining({
        Name: 'rate-per-ip',
        Statement: {
          RateBasedStatement: { Limit: WAF_REQUESTS_PER_IP_PER_5_MINUTES, AggregateKeyType: 'IP' },
        },
        Action: {
          Block: {
            CustomResponse: expect.objectContaining({
              ResponseCode: 429,
              CustomResponseBodyKey: 'rate_limit_exceeded',
            }),
          },
        },
      }),
    ]);
    expect(JSON.parse(webAcl.CustomResponseBodies.rate_limit_exceeded.Content)).toEqual({
      error: { code: 'rate_limit_exceeded', message: 'rate limit exceeded' },
    });
    template.hasResourceProperties('AWS::WAFv2::WebACLAssociation', {
      WebACLArn: { 'Fn::GetAtt': [webAclId, 'Arn'] },
      ResourceArn: Match.objectLike({ 'Fn::Join': Match.arrayWith([Match.arrayWith([{ Ref: restApiId }])]) }),
    });
  });

  it('leaves the web ACL out with -c waf=false', () => {
    const { template: withoutWaf } = synthServiceStack({ [WAF_CONTEXT]: 'false' });
    withoutWaf.resourceCountIs('AWS::WAFv2::WebACL', 0);
    withoutWaf.resourceCountIs('AWS::WAFv2::WebACLAssociation', 0);
  });
});

describe('PartnerRestApi client errors', () => {
  it.each(REST_ROUTES.map((route) => route.id))(
    '%s: its log lines for a 4xx become ClientErrors with the service and Code dimensions',
    (routeId) => {
      const fn = stack.restApi.routeFunctions[routeId];
      template.hasResourceProperties('AWS::Logs::MetricFilter', {
        FilterPattern: `{ $.message = "${CLIENT_ERROR_LOG.message}" }`,
        LogGroupName: { Ref: logicalIdOf(fn.logGroup) },
        MetricTransformations: [
          {
            MetricName: METRICS.clientErrors.name,
            MetricNamespace: METRICS_NAMESPACE,
            MetricValue: '1',
            Dimensions: Match.arrayWith([
              { Key: 'service', Value: '$.service' },
              { Key: METRICS.clientErrors.dimension, Value: `$.${CLIENT_ERROR_LOG.codeField}` },
            ]),
          },
        ],
      });
    },
  );
});
