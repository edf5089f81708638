import { Tracer } from '@aws-lambda-powertools/tracer';
import { SERVICE_NAME } from '#contracts/runtime-settings';
import { instrumentClientsWith } from './sdk-clients.ts';

/**
 * The Powertools Tracer of the functions that are not REST handlers (docs/operations.md#metrics): each
 * invocation is a segment (the Lambda's active tracing), and every AWS SDK client made in functions/runtime/
 * is captured from the moment this module is imported, so a trace shows each DynamoDB, SQS and API Gateway
 * call. Annotations carry no key, secret or key-derived value. Off outside Lambda (the local stack, tests).
 */
export const tracer = new Tracer({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? SERVICE_NAME });

instrumentClientsWith((client) => tracer.captureAWSv3Client(client));
