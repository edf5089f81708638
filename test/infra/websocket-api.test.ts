import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { METRICS_NAMESPACE, METRICS_NAMESPACE_ENV } from '#contracts/metrics';
import { STACK_OUTPUTS } from '#contracts/stack-outputs';
import { type KeyAttribute, TABLES, type TableDefinition } from '#contracts/tables';
import { WS_STAGE_THROTTLE } from '#contracts/throttling';
import { CALLBACK_URL_ENV, WS_BASE_PATH, WS_ROUTES, WS_STAGE } from '#contracts/websocket';
import type { ServiceFunction } from '#lib/constructs/service-function';
import { WS_API_MAPPING_KEY } from '#lib/constructs/websocket-api';
import { WS_DOMAIN_CONTEXT } from '#lib/market-data-stack';
import { acknowledgementsOf, nagFindingsOf, specificAcknowledgements } from './support/cdk-nag.ts';
import { allowStatementsOf } from './support/grants.ts';
import { synthServiceStack } from './support/service-stack.ts';
import {
  actionsOf,
  expectInvokePermission,
  invocationUriOf,
  logicalIdOf,
  onlyResourceOfType,
  resourceOf,
  resourcesOfType,
  templateOfResource,
  webSocketStageUrlOf,
} from './support/template.ts';

const { stack, template } = synthServiceStack();
const webSocket = stack.webSocketApi;
const apiId = logicalIdOf(webSocket.api);
const stageId = logicalIdOf(webSocket.stage);
const authorizerFunctionId = logicalIdOf(stack.restApi.authorizerFunction.lambda);

const authorizerId = onlyResourceOfType(template, 'AWS::ApiGatewayV2::Authorizer');

/** The stage's `@connections` endpoint. */
const CALLBACK_URL = webSocketStageUrlOf('https', apiId);

/** The resource of `execute-api:ManageConnections` on the live stage's connections. */
const CONNECTIONS_ARN = {
  'Fn::Join': [
    '',
    [
      'arn:',
      { Ref: 'AWS::Partition' },
      ':execute-api:',
      { Ref: 'AWS::Region' },
      ':',
      { Ref: 'AWS::AccountId' },
      ':',
      { Ref: apiId },
      `/${WS_STAGE}/*/@connections/*`,
    ],
  ],
};

const routeOf = (routeKey: string) => {
  const matches = resourcesOfType(template, 'AWS::ApiGatewayV2::Route').filter(
    ([, route]) => route.Properties.RouteKey === routeKey,
  );
  expect(matches, routeKey).toHaveLength(1);
  return matches[0] as [string, { Properties: Record<string, unknown> }];
};

describe('PartnerWebSocketApi API', () => {
  it('is a WebSocket API selecting routes on the protocol’s `op` field', () => {
    templateOfResource(template, apiId).hasResourceProperties('AWS::ApiGatewayV2::Api', {
      ProtocolType: 'WEBSOCKET',
      RouteSelectionExpression: '$request.body.op',
      Name: 'market-data-alerts-ws',
    });
  });

  it('has exactly the routes of WS_ROUTES', () => {
    const routeKeys = resourcesOfType(template, 'AWS::ApiGatewayV2::Route').map(
      ([, route]) => route.Properties.RouteKey,
    );
    expect(routeKeys.sort()).toEqual(WS_ROUTES.map((route) => route.routeKey).sort());
  });
});

describe.each(WS_ROUTES)('PartnerWebSocketApi route $routeKey', (route) => {
  const fn = webSocket.routeFunctions[route.id];
  const functionId = logicalIdOf(fn.lambda);

  it(
    route.routeKey === '$connect'
      ? 'is authorized by the REST authorizer function'
      : 'has no authorizer (API Gateway authorizes the handshake only)',
    () => {
      const [routeId] = routeOf(route.routeKey);
      templateOfResource(template, routeId).hasResourceProperties('AWS::ApiGatewayV2::Route', {
        ApiId: { Ref: apiId },
        RouteKey: route.routeKey,
        ...(route.routeKey === '$connect'
          ? { AuthorizationType: 'CUSTOM', AuthorizerId: { Ref: authorizerId } }
          : { AuthorizationType: 'NONE', AuthorizerId: Match.absent() }),
      });
    },
  );

  it(`is a Lambda proxy integration to the ${route.id} function`, () => {
    const [, routeResource] = routeOf(route.routeKey);
    const target = routeResource.Properties.Target as { 'Fn::Join': [string, [string, { Ref: string }]] };
    expect(target['Fn::Join'][1][0]).toBe('integrations/');
    const integrationId = target['Fn::Join'][1][1].Ref;
    templateOfResource(template, integrationId).hasResourceProperties('AWS::ApiGatewayV2::Integration', {
      ApiId: { Ref: apiId },
      IntegrationType: 'AWS_PROXY',
      IntegrationUri: invocationUriOf(functionId),
    });
  });

  it('may be invoked by API Gateway for its own route only', () => {
    expectInvokePermission(template, functionId, 'apigateway.amazonaws.com', [
      { Ref: apiId },
      `/*${route.routeKey}`,
    ]);
  });

  it(
    route.managesConnections
      ? `gets its tables and the @connections endpoint in ${CALLBACK_URL_ENV}`
      : `gets its tables and no ${CALLBACK_URL_ENV}`,
    () => {
      const variables = resourceOf(template, functionId).Properties.Environment.Variables;
      expect(variables).toEqual({
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: expect.any(String),
        POWERTOOLS_LOG_LEVEL: 'INFO',
        [METRICS_NAMESPACE_ENV]: METRICS_NAMESPACE,
        ...Object.fromEntries(
          route.tables.map(({ table }) => [
            TABLES[table].envVar,
            { Ref: logicalIdOf(stack.data.tables[table]) },
          ]),
        ),
        ...(route.managesConnections ? { [CALLBACK_URL_ENV]: CALLBACK_URL } : {}),
      });
    },
  );
});

describe('PartnerWebSocketApi $connect authorizer', () => {
  it('is a REQUEST authorizer with no identity source, invoking the REST authorizer function', () => {
    templateOfResource(template, authorizerId).hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      ApiId: { Ref: apiId },
      AuthorizerType: 'REQUEST',
      IdentitySource: Match.absent(),
      AuthorizerUri: invocationUriOf(authorizerFunctionId),
    });
  });

  it('may invoke the REST authorizer function as this API’s authorizer', () => {
    expectInvokePermission(template, authorizerFunctionId, 'apigateway.amazonaws.com', [
      { Ref: apiId },
      '/authorizers/',
      { Ref: authorizerId },
    ]);
  });
});

describe('PartnerWebSocketApi stage', () => {
  it(`is the auto-deployed "${WS_STAGE}" stage with detailed metrics`, () => {
    templateOfResource(template, stageId).hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      ApiId: { Ref: apiId },
      StageName: WS_STAGE,
      AutoDeploy: true,
      DefaultRouteSettings: { DetailedMetricsEnabled: true },
    });
  });

  it('throttles handshakes and client messages over all connections', () => {
    templateOfResource(template, stageId).hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: {
        DetailedMetricsEnabled: true,
        ThrottlingRateLimit: WS_STAGE_THROTTLE.rateLimit,
        ThrottlingBurstLimit: WS_STAGE_THROTTLE.burstLimit,
      },
    });
  });

  it('writes JSON access logs, kept for a month, never with the partner’s key', () => {
    const settings = resourceOf(template, stageId).Properties.AccessLogSettings;
    const format = JSON.parse(settings.Format);
    expect(format).toMatchObject({
      requestId: '$context.requestId',
      eventType: '$context.eventType',
      routeKey: '$context.routeKey',
      connectionId: '$context.connectionId',
      status: '$context.status',
      denyCode: '$context.authorizer.code',
    });
    expect(settings.Format).not.toContain('apiKey');
    const logGroupId = settings.DestinationArn['Fn::GetAtt'][0];
    templateOfResource(template, logGroupId).hasResourceProperties('AWS::Logs::LogGroup', {
      RetentionInDays: 30,
    });
  });

  it('has no custom domain unless the context names one', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::DomainName', 0);
    template.resourceCountIs('AWS::ApiGatewayV2::ApiMapping', 0);
  });
});

describe('connection management', () => {
  const managers: [string, ServiceFunction][] = [
    ...WS_ROUTES.filter((route) => route.managesConnections).map((route): [string, ServiceFunction] => [
      route.id,
      webSocket.routeFunctions[route.id],
    ]),
    ['fan-out', stack.fanOut.fanOutFunction],
    ['heartbeat', stack.heartbeat.heartbeatFunction],
    // It posts the quotes of its commits (docs/adr/0024-quotes-posted-by-the-ingest.md).
    ['ingest', stack.ingestion.ingestFunction],
  ];
  const manageStatements = (fn: ServiceFunction) =>
    allowStatementsOf(template, fn).filter((statement) =>
      actionsOf(statement).some((action) => action.startsWith('execute-api:')),
    );

  it('is needed by the connect, message, fan-out and heartbeat functions, not by disconnect', () => {
    expect(managers.map(([name]) => name)).toEqual(['connect', 'message', 'fan-out', 'heartbeat', 'ingest']);
  });

  it.each(managers)('%s may manage the live stage’s connections and nothing else in execute-api', (_, fn) => {
    expect(manageStatements(fn)).toEqual([
      { Effect: 'Allow', Action: 'execute-api:ManageConnections', Resource: CONNECTIONS_ARN },
    ]);
  });

  it.each(managers)(`%s finds the @connections endpoint in ${CALLBACK_URL_ENV}`, (_, fn) => {
    templateOfResource(template, logicalIdOf(fn.lambda)).hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ [CALLBACK_URL_ENV]: CALLBACK_URL }) },
    });
  });

  it('is not granted to the disconnect function, which only cleans up rows', () => {
    expect(manageStatements(webSocket.routeFunctions.disconnect)).toEqual([]);
  });

  it('is granted to no other role of the stack', () => {
    const roles = resourcesOfType(template, 'AWS::IAM::Policy')
      .filter(([, policy]) => JSON.stringify(policy.Properties.PolicyDocument).includes('execute-api:'))
      .flatMap(([, policy]) => policy.Properties.Roles.map((role: { Ref: string }) => role.Ref));
    const roleOf = (fn: ServiceFunction) => {
      if (!fn.lambda.role) throw new Error(`${fn.node.path} has no role`);
      return logicalIdOf(fn.lambda.role);
    };
    // The windowed consumer's task posts the quotes (test/infra/ingest-consumer.test.ts holds its grant).
    const consumerTaskRole = logicalIdOf(stack.ingestConsumer?.taskRole ?? expect.unreachable('no consumer'));
    expect(roles.sort()).toEqual([...managers.map(([, fn]) => roleOf(fn)), consumerTaskRole].sort());
  });
});

describe('WebSocket tables', () => {
  const keySchema = (partitionKey: KeyAttribute, sortKey?: KeyAttribute) => [
    { AttributeName: partitionKey.name, KeyType: 'HASH' },
    ...(sortKey ? [{ AttributeName: sortKey.name, KeyType: 'RANGE' }] : []),
  ];
  const tableOf = (id: 'connections' | 'subscriptions' | 'usage') =>
    templateOfResource(template, logicalIdOf(stack.data.tables[id]));

  it('keeps one connection row per account, expiring by expiresAt', () => {
    const definition: TableDefinition = TABLES.connections;
    expect(definition.partitionKey.name).toBe('accountId');
    tableOf('connections').hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: keySchema(definition.partitionKey),
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      StreamSpecification: Match.absent(),
    });
  });

  it('keeps subscriptions by topic and connection, with the byConnection index, expiring by expiresAt', () => {
    const definition: TableDefinition = TABLES.subscriptions;
    tableOf('subscriptions').hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: 'topic', KeyType: 'HASH' },
        { AttributeName: 'connectionId', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [
        {
          IndexName: 'byConnection',
          KeySchema: [
            { AttributeName: 'connectionId', KeyType: 'HASH' },
            { AttributeName: 'topic', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
      TimeToLiveSpecification: { AttributeName: definition.timeToLiveAttribute, Enabled: true },
    });
  });

  it('keeps usage rows by account and message id, expiring by expiresAt (docs/operations.md#usage-report)', () => {
    tableOf('usage').hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: 'accountId', KeyType: 'HASH' },
        { AttributeName: 'messageId', KeyType: 'RANGE' },
      ],
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
    });
  });
});

describe('WebSocket stack outputs', () => {
  it('publishes the stage URL as the WebSocket URL when no custom domain is configured', () => {
    template.hasOutput(STACK_OUTPUTS.webSocketUrl, { Value: webSocketStageUrlOf('wss', apiId) });
  });

  it('publishes the WebSocket API id', () => {
    template.hasOutput(STACK_OUTPUTS.webSocketApiId, { Value: { Ref: apiId } });
  });
});

describe('PartnerWebSocketApi custom domain', () => {
  const DOMAIN = 'stream.example.com';
  const CERTIFICATE_ARN =
    'arn:aws:acm:eu-west-1:123456789012:certificate/0c8d1e7a-7b1f-4c55-9c38-1d2f0e0a1b2c';
  const { stack: domainStack, template: domainTemplate } = synthServiceStack({
    [WS_DOMAIN_CONTEXT.domainName]: DOMAIN,
    [WS_DOMAIN_CONTEXT.certificateArn]: CERTIFICATE_ARN,
  });
  const domain = domainStack.webSocketApi.domainName;

  it('maps the stage under the versioned path, without its leading slash', () => {
    expect(WS_API_MAPPING_KEY).toBe('ws/market/v1');
    expect(`/${WS_API_MAPPING_KEY}`).toBe(WS_BASE_PATH);
    if (!domain) throw new Error('no custom domain was created from the context');
    domainTemplate.hasResourceProperties('AWS::ApiGatewayV2::ApiMapping', {
      ApiId: { Ref: logicalIdOf(domainStack.webSocketApi.api) },
      DomainName: { Ref: logicalIdOf(domain) },
      Stage: WS_STAGE,
      ApiMappingKey: 'ws/market/v1',
    });
  });

  it('is a Regional domain on TLS 1.2 with the given certificate', () => {
    domainTemplate.hasResourceProperties('AWS::ApiGatewayV2::DomainName', {
      DomainName: DOMAIN,
      DomainNameConfigurations: [
        { CertificateArn: CERTIFICATE_ARN, EndpointType: 'REGIONAL', SecurityPolicy: 'TLS_1_2' },
      ],
    });
  });

  it('publishes the custom domain’s URL as the WebSocket URL', () => {
    domainTemplate.hasOutput(STACK_OUTPUTS.webSocketUrl, { Value: `wss://${DOMAIN}/ws/market/v1` });
  });

  it('passes the cdk-nag AwsSolutions checks with the domain too', () => {
    expect(nagFindingsOf(domainStack)).toEqual([]);
  });

  it.each<Record<string, string>>([
    { [WS_DOMAIN_CONTEXT.domainName]: DOMAIN },
    { [WS_DOMAIN_CONTEXT.certificateArn]: CERTIFICATE_ARN },
  ])('refuses half a domain configuration (%o)', (context) => {
    expect(() => synthServiceStack(context)).toThrow(/set both wsDomainName and wsCertificateArn/);
  });
});

describe('PartnerWebSocketApi cdk-nag', () => {
  it('has no unacknowledged AwsSolutions finding', () => {
    expect(nagFindingsOf(webSocket)).toEqual([]);
  });

  it('acknowledges APIG4 on the API and the connection grants, beyond the shared function ones', () => {
    const acknowledged = acknowledgementsOf(webSocket);
    const connectionsFinding = `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:execute-api:<AWS::Region>:<AWS::AccountId>:<${apiId}>/${WS_STAGE}/*/@connections/*]`;
    expect(specificAcknowledgements(acknowledged).sort()).toEqual(
      [
        `${webSocket.api.node.path} AwsSolutions-APIG4`,
        `${webSocket.routeFunctions.connect.node.path} ${connectionsFinding}`,
        `${webSocket.routeFunctions.message.node.path} ${connectionsFinding}`,
      ].sort(),
    );
    for (const { reason } of acknowledged) expect(reason.length).toBeGreaterThan(40);
  });
});
