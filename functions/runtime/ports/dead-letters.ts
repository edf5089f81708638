import { SQSClient } from '@aws-sdk/client-sqs';
import { SqsDeadLetterSink } from '#adapters/sqs/dead-letter-sink';
import { TRADE_DEAD_LETTERS_ENV } from '#contracts/ingestion';
import { environment } from '../environment.ts';
import { memo } from '../memo.ts';
import { instrumentedClient, SDK_CALL_TIMEOUTS } from '../sdk-clients.ts';
import type { SdkClientSettings } from './context.ts';

/** The trades dead-letter queue at `queue().url`, its SQS client made with `queue().client`, on first use. */
export function deadLetterSinkAt(queue: () => { readonly url: string; readonly client?: SdkClientSettings }) {
  return memo(() => {
    const { url, client = {} } = queue();
    return new SqsDeadLetterSink(
      instrumentedClient(new SQSClient({ requestHandler: SDK_CALL_TIMEOUTS, ...client })),
      url,
    );
  });
}

/**
 * The trades dead-letter queue (docs/replay.md#dead-letters-and-redrive), from the ingest function's
 * environment; its own module so only the ingest bundle holds the SQS client.
 */
export const deadLetterSink = deadLetterSinkAt(() => {
  const url = environment()[TRADE_DEAD_LETTERS_ENV];
  if (!url) throw new Error(`environment variable ${TRADE_DEAD_LETTERS_ENV} is not set`);
  return { url };
});
