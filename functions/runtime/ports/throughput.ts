import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { UsagePlanThrottle } from '#adapters/api-gateway/usage-plan-throttle';
import { USAGE_PLAN_ID_ENV } from '#contracts/throttling';
import type { ThroughputTarget } from '#domain/access/ports';
import { environment } from '../environment.ts';
import { memo } from '../memo.ts';
import { instrumentedClient } from '../sdk-clients.ts';

/**
 * Where the clock tick applies each key's REST limits: the usage plan the CDK names in the clock tick's
 * environment. Without it the tick fails loudly, never "applying" limits nowhere; the local stack passes its
 * gateway's limits instead (scripts/local/rest-limits.ts).
 */
export const throughputTarget = memo((): ThroughputTarget => {
  const usagePlanId = environment()[USAGE_PLAN_ID_ENV];
  if (!usagePlanId)
    throw new Error(`environment variable ${USAGE_PLAN_ID_ENV} (the REST API's usage plan) is not set`);
  return new UsagePlanThrottle(instrumentedClient(new APIGatewayClient({})), usagePlanId);
});
