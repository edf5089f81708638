import { SQSClient } from '@aws-sdk/client-sqs';
import { SqsDeadLetterSink } from '#adapters/sqs/dead-letter-sink';
import { TRADE_DEAD_LETTERS_ENV } from '#contracts/ingestion';
import { environment } from '../environment.ts';
import { memo } from '../memo.ts';
import { instrumentedClient } from '../sdk-clients.ts';

/**
 * The trades dead-letter queue (docs/replay.md#dead-letters-and-redrive), from the ingest function's
 * environment; its own module so only the ingest bundle holds the SQS client.
 */
export const deadLetterSink = memo(() => {
  const queueUrl = environment()[TRADE_DEAD_LETTERS_ENV];
  if (!queueUrl) throw new Error(`environment variable ${TRADE_DEAD_LETTERS_ENV} is not set`);
  return new SqsDeadLetterSink(instrumentedClient(new SQSClient({})), queueUrl);
});
