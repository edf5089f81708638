import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { STACK_OUTPUTS } from '#contracts/stack-outputs';
import { CONSOLE_CONTEXT } from '#lib/market-data-stack';
import { acknowledgementsOf, nagFindingsOf } from './support/cdk-nag.ts';
import { synthServiceStack } from './support/service-stack.ts';
import { logicalIdOf } from './support/template.ts';

const { stack, template } = synthServiceStack({ [CONSOLE_CONTEXT]: 'true' });
const site = stack.consoleSite;
if (!site) throw new Error('-c console=true synthesized no console site');
const bucketId = logicalIdOf(site.bucket);

describe('ConsoleSite (-c console=true, docs/console.md#on-aws)', () => {
  it('keeps the files in a private, encrypted bucket that refuses plain HTTP', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucketId },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          Match.objectLike({
            Effect: 'Allow',
            Action: 's3:GetObject',
            Principal: { Service: 'cloudfront.amazonaws.com' },
          }),
        ]),
      },
    });
  });

  it('serves the bucket through origin access control over HTTPS, with the path function', () => {
    template.resourceCountIs('AWS::CloudFront::OriginAccessControl', 1);
    template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        DefaultCacheBehavior: Match.objectLike({
          ViewerProtocolPolicy: 'redirect-to-https',
          FunctionAssociations: [Match.objectLike({ EventType: 'viewer-request' })],
        }),
      }),
    });
    template.hasResourceProperties('AWS::CloudFront::Function', {
      FunctionCode: Match.stringLikeRegexp("event.request.uri = '/console/index.html'"),
    });
  });

  it('serves the REST API under /api/* on the same origin, uncached, with every viewer header but Host', () => {
    template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        CacheBehaviors: [
          Match.objectLike({
            PathPattern: 'api/*',
            ViewerProtocolPolicy: 'https-only',
            AllowedMethods: ['GET', 'HEAD', 'OPTIONS'],
            // The managed CachingDisabled and AllViewerExceptHostHeader policies.
            CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad',
            OriginRequestPolicyId: 'b689b0a8-53d0-40ab-baf2-68738e2966ac',
          }),
        ],
        Origins: Match.arrayWith([
          Match.objectLike({
            OriginPath: Match.objectLike({ 'Fn::Join': Match.anyValue() }),
            CustomOriginConfig: Match.objectLike({ OriginProtocolPolicy: 'https-only' }),
          }),
        ]),
      }),
    });
  });

  it('sends a policy that lets the page reach its own origin and the WebSocket API only', () => {
    template.hasResourceProperties('AWS::CloudFront::ResponseHeadersPolicy', {
      ResponseHeadersPolicyConfig: Match.objectLike({
        SecurityHeadersConfig: Match.objectLike({
          ContentSecurityPolicy: {
            ContentSecurityPolicy: Match.objectLike({
              'Fn::Join': [
                '',
                Match.arrayWith([Match.stringLikeRegexp("^default-src 'self'; connect-src 'self' wss://")]),
              ],
            }),
            Override: true,
          },
          ReferrerPolicy: { ReferrerPolicy: 'no-referrer', Override: true },
          FrameOptions: { FrameOption: 'DENY', Override: true },
        }),
      }),
    });
  });

  it('deploys the files and a config.json with the WebSocket URL under console/, then invalidates them', () => {
    template.hasResourceProperties('Custom::CDKBucketDeployment', {
      DestinationBucketName: { Ref: bucketId },
      DestinationBucketKeyPrefix: 'console/',
      DistributionPaths: ['/console/*'],
      RetainOnDelete: false,
      SourceMarkersConfig: Match.arrayWith([{}, Match.objectLike({ jsonEscape: true })]),
    });
  });

  it('outputs the console URL', () => {
    template.hasOutput(STACK_OUTPUTS.consoleUrl, {
      Value: {
        'Fn::Join': [
          '',
          ['https://', { 'Fn::GetAtt': [logicalIdOf(site.distribution), 'DomainName'] }, '/console/'],
        ],
      },
    });
  });

  it('passes cdk-nag, each acknowledgement with its reason', () => {
    expect(nagFindingsOf(stack)).toEqual([]);
    const acknowledged = acknowledgementsOf(site).map(({ rule }) => rule);
    expect(acknowledged).toEqual(
      expect.arrayContaining([
        'AwsSolutions-CFR1',
        'AwsSolutions-CFR2',
        'AwsSolutions-CFR4',
        'AwsSolutions-S1',
      ]),
    );
    for (const { reason } of acknowledgementsOf(site)) expect(reason.length).toBeGreaterThan(40);
  });
});

describe('MarketDataStack without -c console=true', () => {
  it('has no console site, bucket deployment or distribution', () => {
    const plain = synthServiceStack();
    expect(plain.stack.consoleSite).toBeUndefined();
    plain.template.resourceCountIs('AWS::CloudFront::Distribution', 0);
    plain.template.resourceCountIs('Custom::CDKBucketDeployment', 0);
  });
});
