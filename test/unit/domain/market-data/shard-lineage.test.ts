import { describe, expect, it } from 'vitest';
import { ShardLineage, type ShardParents } from '#domain/market-data/shard-lineage';

const shard = (shardId: string, ...parentShardIds: string[]): ShardParents => ({ shardId, parentShardIds });

describe('ShardLineage', () => {
  it('starts the shards without parents at once, in listing order, each once', () => {
    const lineage = new ShardLineage([shard('b'), shard('a')]);
    expect(lineage.takeReady()).toEqual(['b', 'a']);
    expect(lineage.takeReady()).toEqual([]);
  });

  it('starts the children of a split once their parent ended', () => {
    const lineage = new ShardLineage([shard('p'), shard('c1', 'p'), shard('c2', 'p')]);
    expect(lineage.takeReady()).toEqual(['p']);
    lineage.end('p');
    expect(lineage.takeReady()).toEqual(['c1', 'c2']);
  });

  it('starts the child of a merge once both parents ended, whichever ends first', () => {
    const lineage = new ShardLineage([shard('x'), shard('y')]);
    expect(lineage.takeReady()).toEqual(['x', 'y']);
    lineage.end('y');
    lineage.add([shard('m', 'x', 'y')]);
    expect(lineage.takeReady()).toEqual([]);
    lineage.end('x');
    lineage.add([shard('m', 'x', 'y')]);
    expect(lineage.takeReady()).toEqual(['m']);
  });

  it('waits for a parent that is a child itself, three generations down', () => {
    const lineage = new ShardLineage([shard('g'), shard('p', 'g'), shard('c', 'p')]);
    expect(lineage.takeReady()).toEqual(['g']);
    lineage.end('g');
    expect(lineage.takeReady()).toEqual(['p']);
    lineage.end('p');
    expect(lineage.takeReady()).toEqual(['c']);
  });

  it('is not held back by a parent the stream no longer lists (expired)', () => {
    const lineage = new ShardLineage([shard('c', 'gone'), shard('m', 'gone', 'open'), shard('open')]);
    expect(lineage.takeReady()).toEqual(['c', 'open']);
    lineage.end('open');
    expect(lineage.takeReady()).toEqual(['m']);
  });

  it('counts as ended every ancestor of a shard with a position, and never starts them', () => {
    const lineage = new ShardLineage(
      [shard('g'), shard('p', 'g'), shard('q', 'g'), shard('c', 'p'), shard('d', 'q')],
      ['c'],
    );
    expect(lineage.hasEnded('p')).toBe(true);
    expect(lineage.hasEnded('g')).toBe(true);
    expect(lineage.hasEnded('q')).toBe(false);
    expect(lineage.takeReady()).toEqual(['q', 'c']);
  });

  it('never starts a shard that ended, and keeps the parents it first learnt of', () => {
    const lineage = new ShardLineage([shard('a'), shard('b')]);
    lineage.end('a');
    expect(lineage.takeReady()).toEqual(['b']);
    lineage.add([shard('b', 'a', 'z')]);
    lineage.end('b');
    lineage.add([shard('c', 'b')]);
    expect(lineage.takeReady()).toEqual(['c']);
  });
});
