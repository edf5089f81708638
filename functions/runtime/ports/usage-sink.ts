import { FirehoseClient } from '@aws-sdk/client-firehose';
import { FirehoseUsageSink } from '#adapters/firehose/usage-sink';
import { USAGE_DELIVERY } from '#contracts/usage';
import { environment } from '../environment.ts';
import { memo } from '../memo.ts';
import { instrumentedClient, SDK_CALL_TIMEOUTS } from '../sdk-clients.ts';

/**
 * The usage rows' sink: the Firehose delivery stream the CDK names in the fan-out's environment
 * (docs/storage.md#usage-rows). Its own module, so only the fan-out bundles the Firehose client.
 */
export const usageSink = memo(() => {
  const streamName = environment()[USAGE_DELIVERY.streamEnv];
  if (!streamName)
    throw new Error(
      `environment variable ${USAGE_DELIVERY.streamEnv} (the usage delivery stream) is not set`,
    );
  return new FirehoseUsageSink(
    instrumentedClient(new FirehoseClient({ requestHandler: SDK_CALL_TIMEOUTS })),
    streamName,
  );
});
