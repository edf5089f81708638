import { describe, expect, it } from 'vitest';
import { mostConnectionsWithin, RECONNECT, reconnectDelayMs } from '#domain/feed/reconnect';

describe('reconnectDelayMs', () => {
  it('doubles the ceiling each attempt up to the cap', () => {
    const almostOne = 0.999_999;
    expect(reconnectDelayMs(0, almostOne)).toBe(RECONNECT.baseMs - 1);
    expect(reconnectDelayMs(3, almostOne)).toBe(RECONNECT.baseMs * 8 - 1);
    expect(reconnectDelayMs(30, almostOne)).toBe(RECONNECT.capMs - 1);
  });

  it('jitters over the upper half of the range: every wait has a floor', () => {
    expect(reconnectDelayMs(4, 0)).toBe(RECONNECT.baseMs * 8);
    expect(reconnectDelayMs(4, 0.5)).toBe(RECONNECT.baseMs * 12);
    expect(reconnectDelayMs(30, 0)).toBe(RECONNECT.capMs / 2);
  });

  it('waits at least the floor after a connection-limit refusal', () => {
    expect(reconnectDelayMs(0, 0, true)).toBe(RECONNECT.connectionLimitFloorMs);
  });

  it('bounds the connections a flapping server gets: 9 in the first minute, then one per 15 s', () => {
    expect(mostConnectionsWithin(4_000)).toBe(5);
    expect(mostConnectionsWithin(60_000)).toBe(9);
    expect(mostConnectionsWithin(60_000 + 15_000) - mostConnectionsWithin(60_000)).toBe(1);
  });
});
