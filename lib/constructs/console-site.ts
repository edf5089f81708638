import { AssetHashType, DockerImage, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  AllowedMethods,
  CachePolicy,
  Function as CloudFrontFunction,
  Distribution,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  OriginRequestPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { RestApiOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { BlockPublicAccess, Bucket, BucketEncryption, type CfnBucket } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { REST_BASE_PATH } from '#contracts/routes';
import { CONSOLE_DIR, writeConsole } from '../../console/build.ts';

/** Where the console is served on the distribution, as on the local stack (scripts/local/console-site.ts). */
export const CONSOLE_PREFIX = 'console/';

export interface ConsoleSiteProps {
  /** The REST API, served by the distribution under /api/* so the page calls its own origin. */
  readonly restApi: RestApi;
  /** The WebSocket URL the page connects to; absent without the WebSocket API (`-c webSocket=false`). */
  readonly webSocketUrl?: string;
}

/**
 * `/` and `/console` lead to `/console/`, whose relative URLs then resolve; `/console/` is its index.html.
 * (A CloudFront Function: the S3 origin has no index documents of its own behind origin access control.)
 */
const CONSOLE_PATHS_FUNCTION = `function handler(event) {
  var uri = event.request.uri;
  if (uri === '/' || uri === '/console') {
    return { statusCode: 308, statusDescription: 'Permanent Redirect', headers: { location: { value: '/console/' } } };
  }
  if (uri === '/console/') event.request.uri = '/console/index.html';
  return event.request;
}`;

const ACKNOWLEDGEMENTS = [
  {
    id: 'AwsSolutions-S1',
    reason:
      "The bucket holds the console's public static files only (docs/console.md#on-aws), read solely by " +
      "CloudFront through origin access control; requests are in the API's access logs where they matter.",
  },
  {
    id: 'AwsSolutions-CFR1',
    reason: 'The console is for partners wherever they are, as the API itself; no geographic restriction.',
  },
  {
    id: 'AwsSolutions-CFR2',
    reason:
      'A CloudFront web ACL must live in us-east-1 and this stack is region-agnostic; the API behind /api/* ' +
      'keeps its own stage web ACL and per-key throttling (docs/architecture.md).',
  },
  {
    id: 'AwsSolutions-CFR3',
    reason:
      'Static files and a pass-through to the API, whose stage access log records every API request; the ' +
      'files need no access log.',
  },
  {
    id: 'AwsSolutions-CFR4',
    reason:
      'The distribution uses the default *.cloudfront.net certificate, with which CloudFront cannot set a ' +
      'minimum protocol version; a custom domain with its certificate would set TLSv1.2_2021.',
  },
];

/**
 * CDK's BucketDeployment runs one function per stack (a singleton) at deployment only; its runtime, managed
 * policy and object wildcards are CDK's. Acknowledged on that function, finding by finding.
 */
function deploymentAcknowledgements(bucketLogicalId: string) {
  const copies =
    "CDK's BucketDeployment copies the console asset's objects into the bucket and replaces the old ones: " +
    'object and action wildcards on the asset bucket and on this bucket, by construction; it runs only at ' +
    'deployment.';
  return [
    {
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason:
        "CDK's BucketDeployment function writes its logs with AWSLambdaBasicExecutionRole; it runs only at deployment.",
    },
    ...[
      'Action::s3:GetBucket*',
      'Action::s3:GetObject*',
      'Action::s3:List*',
      'Action::s3:Abort*',
      'Action::s3:DeleteObject*',
      'Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*',
      `Resource::<${bucketLogicalId}.Arn>/*`,
    ].map((finding) => ({ id: `AwsSolutions-IAM5[${finding}]`, reason: copies })),
    {
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        "CloudFront's CreateInvalidation (the deployment invalidates /console/*) takes no resource ARN.",
    },
    {
      id: 'AwsSolutions-L1',
      reason: "CDK's BucketDeployment chooses its function's runtime; it runs only at deployment.",
    },
  ];
}

/**
 * The web console as a static site (docs/console.md#on-aws): a private S3 bucket behind a CloudFront
 * distribution with origin access control, the REST API under /api/* on the same distribution (so the page
 * sends its key to its own origin, with no CORS), and a `config.json` naming the WebSocket URL. Optional:
 * `cdk deploy -c console=true`.
 */
export class ConsoleSite extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  /** The console's address: `https://<distribution>/console/`. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: ConsoleSiteProps) {
    super(scope, id);

    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.DESTROY,
    });

    const wsOrigin = props.webSocketUrl ? ` ${props.webSocketUrl}` : '';
    const headers = new ResponseHeadersPolicy(this, 'Headers', {
      comment: 'Market Data Alerts console: its own origin only, no referrer, no framing',
      securityHeadersBehavior: {
        contentSecurityPolicy: {
          contentSecurityPolicy:
            `default-src 'self'; connect-src 'self'${wsOrigin}; img-src 'self' data:; ` +
            "style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'self'; form-action 'none'",
          override: true,
        },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), override: true },
      },
    });

    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Market Data Alerts web console',
      priceClass: PriceClass.PRICE_CLASS_100,
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        responseHeadersPolicy: headers,
        functionAssociations: [
          {
            eventType: FunctionEventType.VIEWER_REQUEST,
            function: new CloudFrontFunction(this, 'ConsolePaths', {
              comment: 'Leads / and /console to /console/ and serves its index.html',
              code: FunctionCode.fromInline(CONSOLE_PATHS_FUNCTION),
              runtime: FunctionRuntime.JS_2_0,
            }),
          },
        ],
      },
      additionalBehaviors: {
        // The API, uncached, with every header but Host (the key, Retry-After and the rest pass through).
        [`${REST_BASE_PATH.split('/')[1]}/*`]: {
          origin: new RestApiOrigin(props.restApi),
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: AllowedMethods.ALLOW_GET_HEAD_OPTIONS,
          cachePolicy: CachePolicy.CACHING_DISABLED,
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
        },
      },
    });
    for (const acknowledgement of ACKNOWLEDGEMENTS) Validations.of(this).acknowledge(acknowledgement);

    const config = {
      restBaseUrl: REST_BASE_PATH,
      ...(props.webSocketUrl ? { wsUrl: props.webSocketUrl } : {}),
    };
    const deployment = new BucketDeployment(this, 'Files', {
      destinationBucket: this.bucket,
      destinationKeyPrefix: CONSOLE_PREFIX,
      sources: [
        Source.asset(CONSOLE_DIR, {
          assetHashType: AssetHashType.OUTPUT,
          bundling: {
            // Built by the local esbuild, never in Docker (docs/architecture.md#infrastructure).
            image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:24'),
            local: {
              tryBundle(outputDir: string) {
                writeConsole(outputDir);
                return true;
              },
            },
          },
        }),
        Source.jsonData('config.json', config),
      ],
      distribution: this.distribution,
      distributionPaths: [`/${CONSOLE_PREFIX}*`],
      retainOnDelete: false,
      memoryLimit: 256,
    });
    const deploymentFunction = deployment.handlerRole.node.scope;
    const bucketLogicalId = Stack.of(this).resolve((this.bucket.node.defaultChild as CfnBucket).logicalId);
    if (deploymentFunction) {
      for (const acknowledgement of deploymentAcknowledgements(String(bucketLogicalId))) {
        Validations.of(deploymentFunction).acknowledge(acknowledgement);
      }
    }

    this.url = `https://${this.distribution.distributionDomainName}/${CONSOLE_PREFIX}`;
  }
}
