import { Duration, RemovalPolicy, Size, Stack, Validations } from 'aws-cdk-lib';
import { Compression, DeliveryStream, S3Bucket, StreamEncryption } from 'aws-cdk-lib/aws-kinesisfirehose';
import { BlockPublicAccess, Bucket, BucketEncryption, type CfnBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { USAGE_RETENTION_DAYS } from '#contracts/tables';
import { USAGE_DELIVERY } from '#contracts/usage';
import type { BindingTarget } from './service-function.ts';

/**
 * Where the usage rows go (docs/storage.md#usage-rows): a Firehose delivery stream (Direct PUT) buffering the
 * fan-out's NDJSON records into objects in an S3 bucket, one prefix per UTC day of arrival
 * (USAGE_DELIVERY.prefix), what it could not deliver under a prefix of its own. `npm run usage -- --stack`
 * reads the day prefixes (ListObjectsV2, GetObject).
 */
export class UsageDelivery extends Construct {
  readonly bucket: Bucket;
  readonly deliveryStream: DeliveryStream;

  constructor(scope: Construct, id: string) {
    super(scope, id);

    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      // The billing rows: kept as long as the table kept them (USAGE_RETENTION_DAYS after delivery, which is
      // at most the buffer after the push), then expired by S3 at no request cost. Failed deliveries too.
      lifecycleRules: [
        { id: 'usage-rows', prefix: 'usage/', expiration: Duration.days(USAGE_RETENTION_DAYS) },
        { id: 'usage-errors', prefix: 'usage-errors/', expiration: Duration.days(USAGE_RETENTION_DAYS) },
        { id: 'incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
      // Billing data outlives the stack, as the tables do.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Only the usage delivery stream writes this bucket and only operators read it (npm run usage); ' +
        'server access logs would be a second bucket of logs about a log. CloudTrail records its API calls.',
    });

    this.deliveryStream = new DeliveryStream(this, 'Stream', {
      // Firehose's own key: encrypted at rest with nothing for the fan-out to be granted.
      encryption: StreamEncryption.awsOwnedKey(),
      destination: new S3Bucket(this.bucket, {
        dataOutputPrefix: USAGE_DELIVERY.prefix,
        errorOutputPrefix: USAGE_DELIVERY.errorPrefix,
        // A row is readable by the report at most a minute after it arrives; 5 MiB objects at most.
        bufferingInterval: Duration.seconds(USAGE_DELIVERY.bufferingIntervalSeconds),
        bufferingSize: Size.mebibytes(USAGE_DELIVERY.bufferingSizeMiB),
        // Plain NDJSON: the report reads it as written, and storage is a few cents a day.
        compression: Compression.UNCOMPRESSED,
      }),
    });
    this.acknowledgeUnusedMapping();
    const bucketLogicalId = String(
      Stack.of(this).resolve((this.bucket.node.defaultChild as CfnBucket).logicalId),
    );
    for (const finding of [
      'Action::s3:Abort*',
      'Action::s3:DeleteObject*',
      'Action::s3:GetBucket*',
      'Action::s3:GetObject*',
      'Action::s3:List*',
      `Resource::<${bucketLogicalId}.Arn>/*`,
    ]) {
      Validations.of(this.deliveryStream).acknowledge({
        id: `AwsSolutions-IAM5[${finding}]`,
        reason:
          "The S3 destination's role is CDK's (read and write on this bucket's objects, which Firehose needs " +
          'to write, list and abort multipart uploads); it is assumed by Firehose only, on this bucket only.',
      });
    }
  }

  /**
   * The delivery stream construct adds a mapping of Firehose's CIDR blocks to the stack, used only by
   * destinations that Firehose reaches over the network (Redshift, Splunk); this stream writes to S3.
   */
  private acknowledgeUnusedMapping(): void {
    Validations.of(Stack.of(this)).acknowledge({
      id: 'CloudFormation-Validate::W7001',
      reason:
        "The Firehose construct's CIDR-block mapping serves Redshift and Splunk destinations; this stream " +
        'delivers to S3 and never reads it.',
    });
  }

  /**
   * `target` (a function, or a container service) may put records on the stream, and finds its name in
   * USAGE_DELIVERY.streamEnv.
   */
  bindProducer(target: BindingTarget): void {
    // PutRecordBatch only, the one call the usage sink makes (functions/adapters/firehose/usage-sink.ts);
    // grantPutRecords would add PutRecord.
    this.deliveryStream.grant(target, 'firehose:PutRecordBatch');
    target.addEnvironment(USAGE_DELIVERY.streamEnv, this.deliveryStream.deliveryStreamName);
  }
}
