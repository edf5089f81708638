import { CfnResource, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { AccessLogField, AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  ApiMapping,
  CfnAuthorizer,
  DomainName,
  EndpointType,
  LogGroupLogDestination,
  SecurityPolicy,
  WebSocketApi,
  WebSocketStage,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { WebSocketLambdaAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { WebSocketLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct, type IConstruct } from 'constructs';
import { WS_STAGE_THROTTLE } from '#contracts/throttling';
import { CALLBACK_URL_ENV, WS_BASE_PATH, WS_ROUTES, WS_STAGE, type WsRoute } from '#contracts/websocket';
import { type BindingTarget, ServiceFunction, type TableConstructs } from './service-function.ts';

export type WsRouteId = (typeof WS_ROUTES)[number]['id'];

/**
 * The custom domain's API mapping key: the versioned path without its leading slash, so partners connect
 * to `wss://<domain>/ws/market/v1` (docs/partner-guide.md#versioning). A WebSocket API has no paths of its
 * own; only a custom domain's (multi-level) API mapping can put it under one.
 */
export const WS_API_MAPPING_KEY = WS_BASE_PATH.replace(/^\//, '');

/** The id of the `$connect` authorizer, under the WebSocket API construct. */
const CONNECT_AUTHORIZER_ID = 'ConnectAuthorizer';

/** A custom domain for the WebSocket API: a Regional domain with an ACM certificate in the stack's region. */
export interface WebSocketCustomDomain {
  readonly domainName: string;
  readonly certificateArn: string;
}

export interface PartnerWebSocketApiProps {
  readonly tables: TableConstructs;
  /**
   * The REST API's authorizer function (AUTHORIZER.handler): `$connect` is authorized by the same
   * function, which asks for `ws:connect` when the route key is `$connect`
   * (docs/architecture.md#websocket-api-gateway-websocket-api-with-mapped-close-codes).
   */
  readonly authorizerFunction: ServiceFunction;
  /**
   * Without it partners connect to the stage URL (`wss://<api id>.execute-api.<region>.amazonaws.com/live`);
   * with it, to `wss://<domain>/ws/market/v1`. API Gateway cannot map a WebSocket API to a domain that
   * also maps a REST or HTTP API, so this is a domain of its own (e.g. `stream.example.com`), not the
   * REST API's.
   */
  readonly customDomain?: WebSocketCustomDomain;
}

/**
 * One access-log line per connection event, as JSON: the WebSocket counterpart of the REST API's access
 * log. The partner's key is never logged.
 */
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: AccessLogField.contextRequestId(),
    requestTime: AccessLogField.contextRequestTime(),
    sourceIp: AccessLogField.contextIdentitySourceIp(),
    eventType: AccessLogField.contextEventType(),
    routeKey: AccessLogField.contextRouteKey(),
    connectionId: AccessLogField.contextConnectionId(),
    status: AccessLogField.contextStatus(),
    integrationLatencyMs: AccessLogField.contextIntegrationLatency(),
    authorizerLatencyMs: AccessLogField.contextAuthorizerLatency(),
    authorizerError: AccessLogField.contextAuthorizerError(),
    principalId: AccessLogField.contextAuthorizerPrincipalId(),
    denyCode: AccessLogField.contextAuthorizer('code'),
    errorType: AccessLogField.contextErrorResponseType(),
    errorMessage: AccessLogField.contextErrorMessage(),
  }),
);

/**
 * The partner WebSocket API
 * (docs/architecture.md#websocket-api-gateway-websocket-api-with-mapped-close-codes): one Lambda per route of
 * WS_ROUTES, `$connect` behind the REST API's authorizer function, the `live` stage with JSON access logs,
 * and optionally a custom domain that serves the API under WS_BASE_PATH.
 */
export class PartnerWebSocketApi extends Construct {
  readonly api: WebSocketApi;
  readonly stage: WebSocketStage;
  readonly routeFunctions: Readonly<Record<WsRouteId, ServiceFunction>>;
  /** The custom domain and its API mapping, when one is configured. */
  readonly domainName?: DomainName;
  readonly apiMapping?: ApiMapping;
  /** The `wss://` URL partners connect to: the custom domain's when configured, else the stage's. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: PartnerWebSocketApiProps) {
    super(scope, id);

    this.api = new WebSocketApi(this, 'Api', {
      apiName: 'market-data-alerts-ws',
      description: 'Market Data Alerts partner WebSocket API',
      // Every client operation (`{"op":"subscribe"|"unsubscribe"|"ping"}`) goes to `$default`, whose
      // handler dispatches on `op`; selecting on it keeps the expression true to the protocol.
      routeSelectionExpression: '$request.body.op',
    });

    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // Access logging because cdk-nag's APIG1 covers WebSocket stages too, and the REST stage logs the same
    // way. The route throttle bounds handshakes and client messages over all connections together.
    this.stage = new WebSocketStage(this, 'Stage', {
      webSocketApi: this.api,
      stageName: WS_STAGE,
      autoDeploy: true,
      detailedMetricsEnabled: true,
      throttle: { rateLimit: WS_STAGE_THROTTLE.rateLimit, burstLimit: WS_STAGE_THROTTLE.burstLimit },
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: ACCESS_LOG_FORMAT,
      },
    });

    const authorizer = new WebSocketLambdaAuthorizer(CONNECT_AUTHORIZER_ID, props.authorizerFunction.lambda, {
      identitySource: [],
    });
    const routes = new Construct(this, 'Routes');
    this.routeFunctions = Object.fromEntries(
      WS_ROUTES.map((route) => [
        route.id,
        this.addRoute(routes, route, props.tables, route.routeKey === '$connect' ? authorizer : undefined),
      ]),
    ) as Record<WsRouteId, ServiceFunction>;
    removeIdentitySource(this.api);

    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'A WebSocket API authorizes the handshake only: $connect uses the REST Lambda authorizer, and ' +
        '$disconnect and $default run on a connection it already allowed (API Gateway supports no authorizer ' +
        'on them); their handlers read the caller from the $connect authorizer context.',
    });

    if (props.customDomain) {
      this.domainName = new DomainName(this, 'DomainName', {
        domainName: props.customDomain.domainName,
        certificate: Certificate.fromCertificateArn(this, 'Certificate', props.customDomain.certificateArn),
        // WebSocket APIs accept Regional custom domains with TLS 1.2 only.
        endpointType: EndpointType.REGIONAL,
        securityPolicy: SecurityPolicy.TLS_1_2,
      });
      this.apiMapping = new ApiMapping(this, 'ApiMapping', {
        api: this.api,
        domainName: this.domainName,
        stage: this.stage,
        apiMappingKey: WS_API_MAPPING_KEY,
      });
      this.url = `wss://${props.customDomain.domainName}${WS_BASE_PATH}`;
    } else {
      this.url = this.stage.url;
    }
  }

  private addRoute(
    scope: Construct,
    route: WsRoute,
    tables: TableConstructs,
    authorizer: WebSocketLambdaAuthorizer | undefined,
  ): ServiceFunction {
    const handler = new ServiceFunction(scope, route.id, {
      entry: route.handler,
      description: `WebSocket ${route.routeKey}`,
      tables,
      bindings: route.tables,
    });
    if (route.managesConnections) {
      grantConnectionManagement(handler, this.stage);
    }
    this.api.addRoute(route.routeKey, {
      integration: new WebSocketLambdaIntegration(`${route.id}Integration`, handler.lambda),
      authorizer,
    });
    return handler;
  }
}

/**
 * Lets a function (or a container service) post to and delete the stage's connections: the stage's callback
 * URL (the `@connections` endpoint) in CALLBACK_URL_ENV and `execute-api:ManageConnections` on this stage's
 * connections only, in one call so the two cannot drift. The callback URL is the execute-api one even with a
 * custom domain: it always exists and needs no DNS.
 */
export function grantConnectionManagement(target: BindingTarget, stage: WebSocketStage): void {
  target.addEnvironment(CALLBACK_URL_ENV, stage.callbackUrl);
  stage.grantManagementApiAccess(target);
  Validations.of(target).acknowledge({
    id:
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:execute-api:<AWS::Region>:<AWS::AccountId>:' +
      `<${logicalIdOf(stage.api)}>/${stage.stageName}/*/@connections/*]`,
    reason:
      'execute-api:ManageConnections is granted on this stage’s @connections resources only; connection ids ' +
      'are created at run time, so they cannot be listed, and the wildcard covers no other API or stage.',
  });
}

/**
 * The `$connect` authorizer has no identity source
 * (docs/architecture.md#rest-api-api-gateway-rest-api-v1-not-an-http-api,
 * docs/architecture.md#websocket-api-gateway-websocket-api-with-mapped-close-codes): a key may come as
 * `Authorization: Bearer` or as `X-API-Key`, and API Gateway answers 401 without invoking the authorizer when
 * any listed source is missing. The L2 accepts `identitySource: []` but renders it as `IdentitySource: []`;
 * the API Gateway V2 API documents IdentitySource as optional for REQUEST authorizers (WebSocket authorizers
 * are never cached, so nothing needs it as a cache key), so the override removes the property, as the REST
 * authorizer does.
 */
function removeIdentitySource(api: WebSocketApi): void {
  const authorizer = api.node.tryFindChild(CONNECT_AUTHORIZER_ID)?.node.defaultChild;
  if (!(authorizer instanceof CfnAuthorizer)) {
    throw new Error(
      `${api.node.path}/${CONNECT_AUTHORIZER_ID} no longer has a CfnAuthorizer as its default child`,
    );
  }
  authorizer.addPropertyDeletionOverride('IdentitySource');
}

/** The CloudFormation logical id of a construct's primary resource, as cdk-nag names it in findings. */
function logicalIdOf(construct: IConstruct): string {
  const resource = construct.node.defaultChild;
  if (!CfnResource.isCfnResource(resource)) {
    throw new Error(`${construct.node.path} has no CloudFormation resource`);
  }
  return Stack.of(construct).resolve(resource.logicalId);
}
