import {
  type APIGatewayClient,
  GetUsagePlanCommand,
  UpdateUsagePlanCommand,
} from '@aws-sdk/client-api-gateway';
import type { ThroughputTarget } from '#domain/access/ports';
import type { RestLimits } from '#domain/access/throughput';

/** The usage plan's own throttle: the per-key limits API Gateway applies to every key in the plan. */
export class UsagePlanThrottle implements ThroughputTarget {
  constructor(
    private readonly client: APIGatewayClient,
    private readonly usagePlanId: string,
  ) {}

  async current(): Promise<RestLimits | undefined> {
    const plan = await this.client.send(new GetUsagePlanCommand({ usagePlanId: this.usagePlanId }));
    const { rateLimit, burstLimit } = plan.throttle ?? {};
    return rateLimit === undefined || burstLimit === undefined ? undefined : { rateLimit, burstLimit };
  }

  async apply(limits: RestLimits): Promise<void> {
    await this.client.send(
      new UpdateUsagePlanCommand({
        usagePlanId: this.usagePlanId,
        patchOperations: [
          { op: 'replace', path: '/throttle/rateLimit', value: String(limits.rateLimit) },
          { op: 'replace', path: '/throttle/burstLimit', value: String(limits.burstLimit) },
        ],
      }),
    );
  }
}
