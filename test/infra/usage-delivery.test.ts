import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { STACK_OUTPUTS } from '#contracts/stack-outputs';
import { USAGE_RETENTION_DAYS } from '#contracts/tables';
import { USAGE_DELIVERY } from '#contracts/usage';
import { acknowledgementsOf, nagFindingsOf } from './support/cdk-nag.ts';
import { actionsOnResource } from './support/grants.ts';
import { synthServiceStack } from './support/service-stack.ts';
import { logicalIdOf, resourceOf, resourcesOfType, templateOfResource } from './support/template.ts';

const { stack, template } = synthServiceStack();
const usage = stack.usage;
const bucketId = logicalIdOf(usage.bucket);
const streamId = logicalIdOf(usage.deliveryStream);
const fanOutId = logicalIdOf(stack.fanOut.fanOutFunction.lambda);

const destination = () =>
  resourceOf(template, streamId).Properties.ExtendedS3DestinationConfiguration as Record<string, unknown>;

describe('UsageDelivery bucket', () => {
  it('is the stack’s only bucket without the console, retained with the stack', () => {
    expect(resourcesOfType(template, 'AWS::S3::Bucket').map(([id]) => id)).toEqual([bucketId]);
    templateOfResource(template, bucketId).hasResource('AWS::S3::Bucket', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });

  it('is encrypted, blocks every public access and refuses plain HTTP', () => {
    templateOfResource(template, bucketId).hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucketId },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 's3:*',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
  });

  it('expires the rows and the failed deliveries USAGE_RETENTION_DAYS after delivery', () => {
    templateOfResource(template, bucketId).hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: {
        Rules: Match.arrayWith([
          Match.objectLike({ Prefix: 'usage/', ExpirationInDays: USAGE_RETENTION_DAYS, Status: 'Enabled' }),
          Match.objectLike({
            Prefix: 'usage-errors/',
            ExpirationInDays: USAGE_RETENTION_DAYS,
            Status: 'Enabled',
          }),
        ]),
      },
    });
  });

  it('is named in the stack outputs for npm run usage', () => {
    template.hasOutput(STACK_OUTPUTS.usageBucketName, { Value: { Ref: bucketId } });
  });
});

describe('UsageDelivery delivery stream', () => {
  it('is Direct PUT, encrypted with an AWS-owned key', () => {
    templateOfResource(template, streamId).hasResourceProperties('AWS::KinesisFirehose::DeliveryStream', {
      DeliveryStreamType: 'DirectPut',
      DeliveryStreamEncryptionConfigurationInput: { KeyType: 'AWS_OWNED_CMK' },
    });
  });

  it('delivers into the bucket under one prefix per day, failures under their own, every 60 s at most', () => {
    expect(destination()).toMatchObject({
      BucketARN: { 'Fn::GetAtt': [bucketId, 'Arn'] },
      Prefix: 'usage/day=!{timestamp:yyyy-MM-dd}/',
      ErrorOutputPrefix: 'usage-errors/!{firehose:error-output-type}/day=!{timestamp:yyyy-MM-dd}/',
      BufferingHints: { IntervalInSeconds: 60, SizeInMBs: USAGE_DELIVERY.bufferingSizeMiB },
      CompressionFormat: 'UNCOMPRESSED',
    });
  });
});

describe('UsageDelivery producer', () => {
  it('lets the fan-out put records on the stream in batches (the usage sink’s one call), and nothing else', () => {
    expect(actionsOnResource(template, stack.fanOut.fanOutFunction, streamId)).toEqual([
      'firehose:PutRecordBatch',
    ]);
    expect(actionsOnResource(template, stack.fanOut.fanOutFunction, bucketId)).toEqual([]);
  });

  it('names the stream in the fan-out’s environment', () => {
    expect(resourceOf(template, fanOutId).Properties.Environment.Variables[USAGE_DELIVERY.streamEnv]).toEqual(
      {
        Ref: streamId,
      },
    );
  });
});

describe('UsageDelivery cdk-nag', () => {
  it('has no unacknowledged AwsSolutions finding', () => {
    expect(nagFindingsOf(usage)).toEqual([]);
  });

  it('acknowledges the bucket’s access logs and the destination role’s object wildcards, with reasons', () => {
    const acknowledged = acknowledgementsOf(usage);
    expect(acknowledged.map(({ path, rule }) => `${path} ${rule}`).sort()).toEqual(
      [
        `${usage.bucket.node.path} AwsSolutions-S1`,
        ...[
          'Action::s3:Abort*',
          'Action::s3:DeleteObject*',
          'Action::s3:GetBucket*',
          'Action::s3:GetObject*',
          'Action::s3:List*',
          `Resource::<${bucketId}.Arn>/*`,
        ].map((finding) => `${usage.deliveryStream.node.path} AwsSolutions-IAM5[${finding}]`),
      ].sort(),
    );
    for (const { reason } of acknowledged) expect(reason.length).toBeGreaterThan(40);
  });
});
