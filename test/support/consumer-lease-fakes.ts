import type { ConsumerLeaseStore, LeaseItem } from '#use-cases/consumer-lease';

type Call = 'read' | 'take' | 'renew' | 'savePositions' | 'release';

/**
 * The consumer lease's store in memory (functions/use-cases/consumer-lease.ts), with the conditions of its
 * DynamoDB adapter (test/integration/consumer-lease-store.test.ts runs the same cases over both). Each call
 * answers after a few microtasks, so two leases on one store interleave as they would over the network.
 */
export class InMemoryConsumerLeaseStore implements ConsumerLeaseStore {
  item: LeaseItem | undefined;
  /** Every call made, by name, in order. */
  readonly calls: Call[] = [];
  /** While set, the calls it names throw it (the store unreachable); all of them when `only` is unset. */
  failing: { readonly error: Error; readonly only?: readonly Call[] } | undefined;
  /** Runs inside `take`, before its condition is checked: another task's write landing in between. */
  beforeTake: (() => void) | undefined;

  async read(): Promise<LeaseItem | undefined> {
    await this.answer('read');
    return this.item && structuredClone(this.item);
  }

  async take(holder: string, nowMs: number, seen: LeaseItem | undefined): Promise<boolean> {
    await this.answer('take');
    this.beforeTake?.();
    const item = this.item;
    const asSeen =
      seen === undefined
        ? item === undefined
        : item !== undefined && item.holder === seen.holder && item.renewedAtMs === seen.renewedAtMs;
    if (!asSeen) return false;
    this.item = { holder, renewedAtMs: nowMs, positions: { ...item?.positions } };
    return true;
  }

  async renew(holder: string, nowMs: number): Promise<boolean> {
    await this.answer('renew');
    if (!this.item || this.item.holder !== holder) return false;
    this.item = { ...this.item, renewedAtMs: nowMs };
    return true;
  }

  async savePositions(holder: string, positions: ReadonlyMap<string, string>): Promise<boolean> {
    await this.answer('savePositions');
    if (!this.item || this.item.holder !== holder) return false;
    this.item = { ...this.item, positions: { ...this.item.positions, ...Object.fromEntries(positions) } };
    return true;
  }

  async release(holder: string): Promise<void> {
    await this.answer('release');
    if (!this.item || this.item.holder !== holder) return;
    const { holder: _released, ...rest } = this.item;
    this.item = rest;
  }

  private async answer(call: Call): Promise<void> {
    this.calls.push(call);
    for (let turn = 0; turn < 3; turn++) await Promise.resolve();
    if (this.failing && (this.failing.only ?? [call]).includes(call)) throw this.failing.error;
  }
}
