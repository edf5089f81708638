import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import {
  AccessLogField,
  AccessLogFormat,
  ApiKeySourceType,
  AuthorizationType,
  CfnAuthorizer,
  EndpointType,
  LambdaIntegration,
  LogGroupLogDestination,
  RequestAuthorizer,
  ResponseType,
  RestApi,
  type UsagePlan,
} from 'aws-cdk-lib/aws-apigateway';
import { FilterPattern, LogGroup, MetricFilter, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { ERROR_STATUS, errorEnvelope } from '#contracts/errors';
import {
  bodyTemplate,
  GATEWAY_RESPONSES,
  type GatewayResponseDefinition,
} from '#contracts/gateway-responses';
import { CLIENT_ERROR_LOG, METRICS, METRICS_NAMESPACE } from '#contracts/metrics';
import { AUTHORIZER, REST_BASE_PATH, REST_ROUTES, type RestRoute, resourcePath } from '#contracts/routes';
import { AUTH_CACHE_TTL_SECONDS } from '#contracts/runtime-settings';
import { REST_THROTTLE, STAGE_THROTTLE, WAF_REQUESTS_PER_IP_PER_5_MINUTES } from '#contracts/throttling';
import { ServiceFunction, type TableConstructs } from './service-function.ts';

export const REST_STAGE_NAME = 'live';

/** The key of the web ACL's 429 body. */
const RATE_LIMITED_BODY_KEY = 'rate_limit_exceeded';

export type RestRouteId = (typeof REST_ROUTES)[number]['id'];

export interface PartnerRestApiProps {
  readonly tables: TableConstructs;
  /**
   * An AWS WAF web ACL with a per-IP rate-based rule on the stage (`cdk deploy -c waf=false` leaves it out,
   * e.g. on LocalStack, which has no WAF).
   * @default true
   */
  readonly waf?: boolean;
}

/** One access-log line per request, as JSON. The partner's key is never logged, not even the usage key. */
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: AccessLogField.contextRequestId(),
    requestTime: AccessLogField.contextRequestTime(),
    sourceIp: AccessLogField.contextIdentitySourceIp(),
    httpMethod: AccessLogField.contextHttpMethod(),
    resourcePath: AccessLogField.contextResourcePath(),
    path: AccessLogField.contextPath(),
    status: AccessLogField.contextStatus(),
    responseLength: AccessLogField.contextResponseLength(),
    responseLatencyMs: AccessLogField.contextResponseLatency(),
    integrationLatencyMs: AccessLogField.contextIntegrationLatency(),
    authorizerLatencyMs: AccessLogField.contextAuthorizerLatency(),
    principalId: AccessLogField.contextAuthorizerPrincipalId(),
    denyCode: AccessLogField.contextAuthorizer('code'),
    errorType: AccessLogField.contextErrorResponseType(),
    errorMessage: AccessLogField.contextErrorMessage(),
  }),
);

/** Acknowledged only when the stage has no web ACL (`-c waf=false`). */
const NO_WAF_ACKNOWLEDGEMENT = {
  id: 'AwsSolutions-APIG3',
  reason:
    'Deployed with -c waf=false (LocalStack has no WAF): every method still requires a partner key checked ' +
    'by the Lambda authorizer, the usage plan throttles each key and the stage throttles all callers.',
} as const;

/** Acknowledged cdk-nag findings on the REST API, with the reason for each. */
const API_ACKNOWLEDGEMENTS = [
  {
    id: 'AwsSolutions-APIG2',
    reason:
      'Requests are validated by each handler with its route schema ' +
      '(docs/architecture.md#contracts-one-source-of-truth-for-each), so a bad parameter gets the partner ' +
      'error envelope (docs/partner-guide.md#errors) with invalid_parameter; an API Gateway validator ' +
      'would answer first, differently.',
  },
  {
    id: 'AwsSolutions-APIG6',
    reason:
      'Execution logging needs the account-wide API Gateway CloudWatch role (AWS::ApiGateway::Account), a ' +
      'per-region singleton this service must not own (cdk.json sets disableCloudWatchRole). Access logs, ' +
      'stage metrics, X-Ray traces and the function logs cover each request.',
  },
  {
    id: 'AwsSolutions-COG4',
    reason:
      'Partners authenticate with API keys, not Cognito users: every method uses the custom Lambda ' +
      'authorizer, which checks the key, its entitlement and its scopes ' +
      '(docs/architecture.md#rest-api-api-gateway-rest-api-v1-not-an-http-api).',
  },
] as const;

/**
 * The partner REST API (docs/architecture.md#rest-api-api-gateway-rest-api-v1-not-an-http-api): the routes of
 * REST_ROUTES under REST_BASE_PATH, each a Lambda proxy integration behind the Lambda authorizer with the key
 * required, the gateway responses in the partner error envelope (docs/partner-guide.md#errors), and the usage
 * plan that throttles each key.
 */
export class PartnerRestApi extends Construct {
  readonly api: RestApi;
  readonly authorizerFunction: ServiceFunction;
  readonly routeFunctions: Readonly<Record<RestRouteId, ServiceFunction>>;
  readonly usagePlan: UsagePlan;
  /** The stage's access log (JSON lines; the throttled-requests metric is filtered from it). */
  readonly accessLogs: LogGroup;
  /** The REST base URL including the versioned prefix. */
  readonly baseUrl: string;
  /** The stage's web ACL; absent with `waf: false`. */
  readonly webAcl?: CfnWebACL;

  constructor(scope: Construct, id: string, props: PartnerRestApiProps) {
    super(scope, id);

    this.authorizerFunction = new ServiceFunction(this, 'Authorizer', {
      entry: AUTHORIZER.handler,
      description: 'REST Lambda authorizer: API key, entitlement and scope',
      tables: props.tables,
      bindings: AUTHORIZER.tables,
      environment: { AUTH_CACHE_TTL_SECONDS: String(AUTH_CACHE_TTL_SECONDS) },
    });

    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const accessLogs = this.accessLogs;

    this.api = new RestApi(this, 'Api', {
      restApiName: 'market-data-alerts',
      description: 'Market Data Alerts partner REST API',
      endpointTypes: [EndpointType.REGIONAL],
      // The usage plan identifies the key by the `usageIdentifierKey` the authorizer returns, so partners
      // never send an API Gateway key themselves
      // (docs/architecture.md#rest-api-api-gateway-rest-api-v1-not-an-http-api).
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
      // Explicit, so it does not depend on the cdk.json feature flag: see the APIG6 acknowledgement.
      cloudWatchRole: false,
      deployOptions: {
        stageName: REST_STAGE_NAME,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: ACCESS_LOG_FORMAT,
        metricsEnabled: true,
        tracingEnabled: true,
        // Every method's limit over all callers, authorized or not (the usage plan limits each key).
        throttlingRateLimit: STAGE_THROTTLE.rateLimit,
        throttlingBurstLimit: STAGE_THROTTLE.burstLimit,
      },
      // Applied to every method of the API, so no route can be added without the authorizer and the key.
      defaultMethodOptions: {
        authorizer: createRequestAuthorizer(this, this.authorizerFunction),
        authorizationType: AuthorizationType.CUSTOM,
        apiKeyRequired: true,
      },
    });
    // RestApi always adds an `Endpoint` output under a generated key, pointing at the stage root; the stack
    // publishes the versioned base URL as `RestApiUrl` instead, so this one would only mislead.
    this.api.node.tryRemoveChild('Endpoint');
    for (const acknowledgement of API_ACKNOWLEDGEMENTS) {
      Validations.of(this.api).acknowledge(acknowledgement);
    }
    if (props.waf ?? true) {
      this.webAcl = this.addRateLimitingWebAcl();
    } else {
      Validations.of(this.api).acknowledge(NO_WAF_ACKNOWLEDGEMENT);
    }

    const routes = new Construct(this, 'Routes');
    this.routeFunctions = Object.fromEntries(
      REST_ROUTES.map((route) => [route.id, this.addRoute(routes, route, props.tables)]),
    ) as Record<RestRouteId, ServiceFunction>;
    for (const route of REST_ROUTES) countClientErrors(this.routeFunctions[route.id]);

    for (const response of GATEWAY_RESPONSES) {
      this.addGatewayResponse(response);
    }

    this.usagePlan = this.api.addUsagePlan('UsagePlan', {
      name: 'market-data-alerts-partners',
      description: 'Per-key REST throttle; the key CLI registers each partner key here.',
      throttle: { rateLimit: REST_THROTTLE.rateLimit, burstLimit: REST_THROTTLE.burstLimit },
      apiStages: [{ api: this.api, stage: this.api.deploymentStage }],
    });

    this.baseUrl = this.api.urlForPath(REST_BASE_PATH);
  }

  /**
   * A WAF web ACL on the stage whose rate-based rule blocks an IP address above
   * WAF_REQUESTS_PER_IP_PER_5_MINUTES with 429 and the partner error envelope. It counts requests before API
   * Gateway and the authorizer see them, so a flood without keys costs no Lambda invocation.
   */
  private addRateLimitingWebAcl(): CfnWebACL {
    const visibility = (metricName: string) => ({
      cloudWatchMetricsEnabled: true,
      metricName,
      sampledRequestsEnabled: true,
    });
    const webAcl = new CfnWebACL(this, 'WebAcl', {
      scope: 'REGIONAL',
      description: 'Market Data Alerts REST API: per-IP rate limit',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('market-data-alerts-rest'),
      customResponseBodies: {
        [RATE_LIMITED_BODY_KEY]: {
          contentType: 'APPLICATION_JSON',
          content: JSON.stringify(errorEnvelope('rate_limit_exceeded')),
        },
      },
      rules: [
        {
          name: 'rate-per-ip',
          priority: 0,
          statement: {
            rateBasedStatement: { limit: WAF_REQUESTS_PER_IP_PER_5_MINUTES, aggregateKeyType: 'IP' },
          },
          action: {
            block: {
              customResponse: {
                responseCode: ERROR_STATUS.rate_limit_exceeded,
                customResponseBodyKey: RATE_LIMITED_BODY_KEY,
                responseHeaders: [{ name: 'Retry-After', value: '60' }],
              },
            },
          },
          visibilityConfig: visibility('market-data-alerts-rest-rate-per-ip'),
        },
      ],
    });
    new CfnWebACLAssociation(this, 'WebAclAssociation', {
      resourceArn: this.api.deploymentStage.stageArn,
      webAclArn: webAcl.attrArn,
    });
    return webAcl;
  }

  private addRoute(scope: Construct, route: RestRoute, tables: TableConstructs): ServiceFunction {
    const handler = new ServiceFunction(scope, route.id, {
      entry: route.handler,
      description: `${route.method} ${resourcePath(route)}`,
      tables,
      bindings: route.tables,
    });
    this.api.root
      .resourceForPath(resourcePath(route))
      .addMethod(route.method, new LambdaIntegration(handler.lambda));
    return handler;
  }

  private addGatewayResponse(response: GatewayResponseDefinition): void {
    this.api.addGatewayResponse(response.type, {
      type: ResponseType.of(response.type),
      statusCode: response.statusCode?.toString(),
      responseHeaders: staticHeaderValues({ 'Content-Type': 'application/json', ...response.headers }),
      templates: { 'application/json': bodyTemplate(response) },
    });
  }
}

/**
 * The REQUEST authorizer with no identity source and no API Gateway cache
 * (docs/architecture.md#rest-api-api-gateway-rest-api-v1-not-an-http-api): a key may come as
 * `Authorization: Bearer` or as `X-API-Key`, and API Gateway answers 401 without invoking the authorizer
 * when any listed identity source is missing.
 *
 * The L2 accepts `identitySources: []` only with a cache TTL of 0 (aws-cdk-lib 2.276.0,
 * aws-apigateway/lib/authorizers/lambda.js, error `LeastOneIdentitySourceRequired`), but it still renders
 * the empty list as `IdentitySource: ""`. CloudFormation and the API Gateway API document IdentitySource as
 * required only when caching is enabled, and tools that target it omit the property for uncached REQUEST
 * authorizers (serverless/serverless#10168), so the override removes it rather than sending "".
 */
function createRequestAuthorizer(scope: Construct, handler: ServiceFunction): RequestAuthorizer {
  const authorizer = new RequestAuthorizer(scope, 'RequestAuthorizer', {
    handler: handler.lambda,
    identitySources: [],
    resultsCacheTtl: Duration.seconds(0),
  });
  const resource = authorizer.node.defaultChild;
  if (!(resource instanceof CfnAuthorizer)) {
    throw new Error('RequestAuthorizer no longer has a CfnAuthorizer as its default child');
  }
  resource.addPropertyDeletionOverride('IdentitySource');
  return authorizer;
}

/** Gateway response header values are mapping expressions: a literal is written in single quotes. */
function staticHeaderValues(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => {
      if (value.includes("'")) throw new Error(`gateway response header ${name} cannot contain a quote`);
      return [name, `'${value}'`];
    }),
  );
}

/**
 * The `ClientErrors` metric of a REST function, from its log lines (functions/runtime/client-errors.ts): one
 * per 4xx, with the `service` and `Code` dimensions that the EMF path gives the other functions' metrics.
 */
function countClientErrors(fn: ServiceFunction): void {
  const { name, dimension } = METRICS.clientErrors;
  new MetricFilter(fn, 'ClientErrorsFilter', {
    logGroup: fn.logGroup,
    filterPattern: FilterPattern.stringValue('$.message', '=', CLIENT_ERROR_LOG.message),
    metricNamespace: METRICS_NAMESPACE,
    metricName: name,
    metricValue: '1',
    dimensions: { service: '$.service', [dimension]: `$.${CLIENT_ERROR_LOG.codeField}` },
  });
}
