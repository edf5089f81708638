import { VOLATILE_PERIODS } from '#contracts/throttling';
import type { ThroughputTarget } from '#domain/access/ports';
import { type RestThroughput, restThroughputAt, sameLimits } from '#domain/access/throughput';
import type { SimultaneousBreakBody } from '#domain/strat/alerts';
import type { EventFeed } from '#domain/strat/ports';

/**
 * Sets each key's REST limits to the rule's figures for now (docs/partner-guide.md#limits-and-throttling):
 * the clock tick runs it every minute. Writes only when they change. Returns the throughput and whether it
 * was applied.
 */
export async function adjustRestThroughput(
  nowMs: number,
  ports: { readonly breaks: EventFeed<SimultaneousBreakBody>; readonly target: ThroughputTarget },
): Promise<RestThroughput & { readonly changed: boolean }> {
  const recent = await ports.breaks.read({
    fromMs: nowMs - VOLATILE_PERIODS.afterBreakMinutes * 60_000,
    limit: 1,
    accept: () => true,
    maxExamined: 100,
  });
  const throughput = restThroughputAt(nowMs, recent.events[0]?.triggeredAtMs);
  const limits = { rateLimit: throughput.rateLimit, burstLimit: throughput.burstLimit };
  if (sameLimits(await ports.target.current(), limits)) return { ...throughput, changed: false };
  await ports.target.apply(limits);
  return { ...throughput, changed: true };
}
