import { Tracer } from '@aws-lambda-powertools/tracer';
import { SERVICE_NAME } from '#contracts/runtime-settings';

/**
 * The functions' one Powertools Tracer: each invocation is a segment (the Lambda's active tracing), and every
 * AWS SDK client made in functions/runtime/ is captured, so a trace shows each DynamoDB, SQS and API Gateway
 * call. Annotations carry no key, secret or key-derived value. Off outside Lambda (the local stack, tests).
 */
export const tracer = new Tracer({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? SERVICE_NAME });

/** An AWS SDK v3 client whose calls appear as subsegments of the invocation's trace. */
export function traced<Client>(client: Client): Client {
  return tracer.captureAWSv3Client(client);
}
