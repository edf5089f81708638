/**
 * Which shards of the trades stream to read now, after a reshard or a restart
 * (docs/adr/0026-long-running-ingest-consumer.md: parents read to their end before their children, as the
 * Kinesis Client Library does). A symbol's trades keep their order only that way: after a split or a merge,
 * the records put before it are in the parent, those put after in a child.
 *
 * A shard is read once every parent of it ended. A parent this lineage does not know (the stream no longer
 * lists it: it is past the retention period, with nothing left to read) never holds a child back. A merge's
 * child waits for both parents. A shard counts as ended from the start when one of its descendants has a
 * position: a child is only ever read after its parents ended, so a position in a child means its parents
 * were read to their end before (and a parent still listed is not read again from its start).
 *
 * Pure: the shard reader (functions/adapters/kinesis/shard-reader.ts) tells it the shards listed and the
 * shards that ended, with the children their end announced, and starts what it returns.
 */
export interface ShardParents {
  readonly shardId: string;
  /** The shard's parent, and the adjacent parent of a merge; none for a shard the stream started with. */
  readonly parentShardIds: readonly string[];
}

export class ShardLineage {
  private readonly parents = new Map<string, readonly string[]>();
  /** In the order they became known: shards are started in it. */
  private readonly order: string[] = [];
  private readonly ended = new Set<string>();
  private readonly taken = new Set<string>();

  /** `listed`: the stream's shards; `positioned`: the shards with a position to read them after. */
  constructor(listed: readonly ShardParents[], positioned: Iterable<string> = []) {
    this.add(listed);
    for (const shardId of positioned) {
      for (const ancestor of this.ancestorsOf(shardId)) this.ended.add(ancestor);
    }
  }

  /** Shards learnt of later: the children a shard's end announced. A shard known already keeps its parents. */
  add(shards: readonly ShardParents[]): void {
    for (const { shardId, parentShardIds } of shards) {
      if (this.parents.has(shardId)) continue;
      this.parents.set(shardId, [...new Set(parentShardIds)]);
      this.order.push(shardId);
    }
  }

  /** The shard was read to its end (or is gone): its children may start once their other parents end. */
  end(shardId: string): void {
    this.ended.add(shardId);
  }

  hasEnded(shardId: string): boolean {
    return this.ended.has(shardId);
  }

  /**
   * The shards to start reading now, each returned once: not ended, and every parent of it ended or unknown.
   */
  takeReady(): string[] {
    const ready = this.order.filter(
      (shardId) =>
        !this.taken.has(shardId) &&
        !this.ended.has(shardId) &&
        (this.parents.get(shardId) ?? []).every(
          (parent) => this.ended.has(parent) || !this.parents.has(parent),
        ),
    );
    for (const shardId of ready) this.taken.add(shardId);
    return ready;
  }

  /** Every known shard the given one descends from (through known shards only). */
  private ancestorsOf(shardId: string): Set<string> {
    const found = new Set<string>();
    const pending = [...(this.parents.get(shardId) ?? [])];
    for (let parent = pending.pop(); parent !== undefined; parent = pending.pop()) {
      if (found.has(parent) || !this.parents.has(parent)) continue;
      found.add(parent);
      pending.push(...(this.parents.get(parent) ?? []));
    }
    return found;
  }
}
