import { describe, expect, it } from 'vitest';
import { RECONNECT, reconnectDelayMs } from '#domain/feed/reconnect';

describe('reconnectDelayMs', () => {
  it('doubles the ceiling each attempt up to the cap', () => {
    const almostOne = 0.999_999;
    expect(reconnectDelayMs(0, almostOne)).toBe(RECONNECT.baseMs - 1);
    expect(reconnectDelayMs(3, almostOne)).toBe(RECONNECT.baseMs * 8 - 1);
    expect(reconnectDelayMs(30, almostOne)).toBe(RECONNECT.capMs - 1);
  });

  it('jitters over the whole range', () => {
    expect(reconnectDelayMs(4, 0)).toBe(0);
    expect(reconnectDelayMs(4, 0.5)).toBe(RECONNECT.baseMs * 8);
  });

  it('waits at least the floor after a connection-limit refusal', () => {
    expect(reconnectDelayMs(0, 0, true)).toBe(RECONNECT.connectionLimitFloorMs);
  });
});
