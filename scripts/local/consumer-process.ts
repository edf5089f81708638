import { INGEST_CONSUMER_ENV } from '#contracts/ingest-consumer';
import { TABLE_IDS, TABLES } from '#contracts/tables';
import { LOCAL_SQS_PATH, LocalDeadLetterQueue } from './dead-letter-queue.ts';
import { LOCAL_AWS } from './dynamo.ts';
import type { LocalStack } from './stack.ts';
import { localTableName } from './tables.ts';

/** The stream and enhanced fan-out consumer a local consumer process is told it reads. */
export const LOCAL_STREAM_ARN = 'arn:aws:kinesis:us-east-1:000000000000:stream/trades';
export const LOCAL_CONSUMER_ARN = `${LOCAL_STREAM_ARN}/consumer/ingest:1700000000`;

/**
 * The environment the windowed ingest consumer's process (functions/containers/ingest-consumer.ts) gets from
 * its Fargate task (lib/constructs/ingest-consumer.ts), pointed at a local stack's DynamoDB and dead-letter
 * queue and at a local Kinesis endpoint (scripts/local/kinesis-endpoint.ts), through the SDK's own
 * `AWS_ENDPOINT_URL_*` settings. Without a callback URL the process posts no quote (the stack does not stream).
 *
 * What a local stack set in this process for its in-process Lambdas (Powertools' settings, metrics off among
 * them, and the Lambda runtime's concurrency) is removed (`undefined`, as scripts and tests spawn with): the
 * container has none of it, and a process run with it would not be the one AWS runs.
 */
export function consumerProcessEnvironment(
  stack: LocalStack,
  kinesisUrl: string,
): Record<string, string | undefined> {
  const origin = new URL(stack.restUrl).origin;
  const localStackSettings = Object.keys(process.env).filter((name) =>
    /^(POWERTOOLS_|AWS_LAMBDA_)/.test(name),
  );
  return {
    ...Object.fromEntries(localStackSettings.map((name) => [name, undefined])),
    POWERTOOLS_TRACE_ENABLED: 'false',
    AWS_REGION: LOCAL_AWS.region,
    AWS_ACCESS_KEY_ID: LOCAL_AWS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_AWS.secretAccessKey,
    AWS_ENDPOINT_URL_KINESIS: kinesisUrl,
    AWS_ENDPOINT_URL_DYNAMODB: stack.dynamoEndpoint,
    AWS_ENDPOINT_URL_SQS: `${origin}${LOCAL_SQS_PATH}`,
    TRADE_DEAD_LETTER_QUEUE_URL: LocalDeadLetterQueue.urlAt(origin),
    [INGEST_CONSUMER_ENV.streamArn]: LOCAL_STREAM_ARN,
    [INGEST_CONSUMER_ENV.streamConsumerArn]: LOCAL_CONSUMER_ARN,
    ...Object.fromEntries(TABLE_IDS.map((id) => [TABLES[id].envVar, localTableName(id)])),
  };
}
