import { describe, expect, it } from 'vitest';
import { epochMsOf, epochMsOfNanos, parseJsonKeepingIntegers } from '#adapters/feed/exact-time';

const lastNanoOfMinute = '2024-05-15T15:11:59.999999999Z';
const minuteStartMs = Date.parse('2024-05-15T15:11:00Z');

describe('exact provider times', () => {
  it('floors an RFC 3339 time with nine fraction digits into its own minute', () => {
    expect(epochMsOf(lastNanoOfMinute)).toBe(minuteStartMs + 59_999);
    expect(epochMsOf('2024-05-15T15:12:00.000000001Z')).toBe(minuteStartMs + 60_000);
    expect(epochMsOf('2024-05-15T15:11:59.5Z')).toBe(minuteStartMs + 59_500);
    expect(epochMsOf('2024-05-15T15:11:59Z')).toBe(minuteStartMs + 59_000);
    expect(epochMsOf('2024-05-15T11:11:59.999999999-04:00')).toBe(minuteStartMs + 59_999);
    expect(epochMsOf('2024-05-15 15:11:59Z')).toBeNaN();
    expect(epochMsOf(1)).toBeNaN();
  });

  it('floors a nanosecond epoch exactly, where a float would round it into the next minute', () => {
    const nanos = `${BigInt(minuteStartMs + 59_999) * 1_000_000n + 999_999n}`;
    expect(Math.floor(Number(nanos) / 1e6)).toBe(minuteStartMs + 60_000); // the float way is wrong
    expect(epochMsOfNanos(nanos)).toBe(minuteStartMs + 59_999);
    expect(epochMsOfNanos(BigInt(nanos))).toBe(minuteStartMs + 59_999);
    expect(epochMsOfNanos(1_000_000)).toBe(1);
    expect(epochMsOfNanos(Number(nanos))).toBeNaN(); // not a safe integer: its digits are already lost
    expect(epochMsOfNanos('12a')).toBeNaN();
  });

  it('reads the named integer fields of a JSON page as their digits', () => {
    const text = '{"results":[{"sip_timestamp": 1715785919999999999,"size":100,"id":"7"}]}';
    expect(parseJsonKeepingIntegers(text, ['sip_timestamp'])).toEqual({
      results: [{ sip_timestamp: '1715785919999999999', size: 100, id: '7' }],
    });
  });
});
