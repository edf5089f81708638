import type { RestUsage } from '../lib/usage-report.ts';

/**
 * The local gateway's REST request counts per day (UTC), account and key: what API Gateway's usage plan
 * counts on AWS (requests that passed the authorizer and the throttle), read by `npm run usage`.
 */
export class RequestUsage {
  private readonly counts = new Map<string, RestUsage>();

  /** `nowMs`: the service clock (the local stack's virtual one when it runs one), which dates the counts. */
  constructor(private readonly nowMs: () => number = Date.now) {}

  count(accountId: string, keyId: string): void {
    const date = new Date(this.nowMs()).toISOString().slice(0, 10);
    const key = `${date}\u0000${accountId}\u0000${keyId}`;
    const current = this.counts.get(key);
    this.counts.set(key, { date, account: accountId, keyId, requests: (current?.requests ?? 0) + 1 });
  }

  /** The counts of the days from `from` to `to` (inclusive, `YYYY-MM-DD`). */
  between(from: string, to: string): RestUsage[] {
    return [...this.counts.values()]
      .filter(({ date }) => date >= from && date <= to)
      .sort((a, b) => (a.date + a.account + a.keyId < b.date + b.account + b.keyId ? -1 : 1));
  }
}
