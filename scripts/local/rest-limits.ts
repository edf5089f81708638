import { REST_THROTTLE } from '#contracts/throttling';
import type { ThroughputTarget } from '#domain/access/ports';
import type { RestLimits } from '#domain/access/throughput';

/**
 * The local gateway's per-key REST limits (no usage plan here): the stack's clock tick applies them, as it
 * applies the usage plan's on AWS, and the gateway's token buckets read them at every request
 * (scripts/local/token-bucket.ts). One per stack.
 */
export class LocalRestLimits implements ThroughputTarget {
  private limits: RestLimits = { ...REST_THROTTLE };

  /** The limits in force now. */
  read(): RestLimits {
    return this.limits;
  }

  async current(): Promise<RestLimits> {
    return this.limits;
  }

  async apply(limits: RestLimits): Promise<void> {
    this.limits = { ...limits };
  }
}
