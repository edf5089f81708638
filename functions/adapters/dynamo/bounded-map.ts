/**
 * Sets `key` as the map's newest entry, then lets the oldest go while it holds more than `limit`: a bounded
 * per-process memory, the least recently set first out (a Map, not lru-cache: REST handlers use it, and their
 * bundles stay within 300 KB, docs/adr/0013-lean-lambda-bundles.md).
 */
export function keepBounded<Value>(map: Map<string, Value>, key: string, value: Value, limit: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > limit) map.delete(map.keys().next().value as string);
}
