import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { UsagePlanThrottle } from '#adapters/api-gateway/usage-plan-throttle';
import { REST_THROTTLE, USAGE_PLAN_ID_ENV } from '#contracts/throttling';
import type { ThroughputTarget } from '#domain/access/ports';
import type { RestLimits } from '#domain/access/throughput';
import { memo } from '../memo.ts';
import { instrumentedClient } from '../sdk-clients.ts';

/**
 * The local stack's per-key limits: no usage plan there, so the clock tick sets these and the local gateway's
 * token buckets read them (scripts/local/token-bucket.ts).
 */
export const localRestLimits: { current: RestLimits } = { current: { ...REST_THROTTLE } };

const localTarget: ThroughputTarget = {
  current: async () => localRestLimits.current,
  apply: async (limits) => {
    localRestLimits.current = { ...limits };
  },
};

/** Where the clock tick applies each key's REST limits: the usage plan on AWS, else the local gateway's. */
export const throughputTarget = memo((): ThroughputTarget => {
  const usagePlanId = process.env[USAGE_PLAN_ID_ENV];
  return usagePlanId
    ? new UsagePlanThrottle(instrumentedClient(new APIGatewayClient({})), usagePlanId)
    : localTarget;
});
