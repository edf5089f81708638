import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CLIENT_MESSAGE_RATE } from '#contracts/websocket';
import { MessageCounts, verdictFor } from '#domain/streaming/message-allowance';

const { messages, answeredRefusals, closeAt, windowSeconds } = CLIENT_MESSAGE_RATE;
const T0 = Date.parse('2024-11-26T15:00:00Z');

describe('verdictFor', () => {
  it('admits the allowance, answers a few refusals, ignores the rest and closes once, at closeAt', () => {
    const verdicts = Array.from({ length: closeAt + 20 }, (_, index) => verdictFor(index + 1));
    expect(verdicts.filter((verdict) => verdict === 'admit')).toHaveLength(messages);
    expect(verdicts.filter((verdict) => verdict === 'refuse')).toHaveLength(answeredRefusals);
    expect(verdicts.filter((verdict) => verdict === 'close')).toHaveLength(1);
    expect(verdicts[closeAt - 1]).toBe('close');
    expect(verdicts.slice(messages + answeredRefusals).filter((v) => v !== 'ignore')).toEqual(['close']);
  });
});

describe('MessageCounts', () => {
  it('counts per connection and per window, starting again in the next window', () => {
    const counts = new MessageCounts();
    expect(counts.count('a', T0)).toBe(1);
    expect(counts.count('a', T0 + 1)).toBe(2);
    expect(counts.count('b', T0 + 2)).toBe(1);
    expect(counts.count('a', T0 + windowSeconds * 1000)).toBe(1);
  });

  it('remembers at most its capacity of connections, whatever the ids, forgetting the least recent', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 300 }), (ids) => {
        const counts = new MessageCounts(50);
        for (const id of ['constructor', '__proto__', ...ids]) counts.count(id, T0);
        expect(counts.size).toBeLessThanOrEqual(50);
      }),
    );
    const counts = new MessageCounts(2);
    counts.count('a', T0);
    counts.count('b', T0);
    counts.count('a', T0);
    counts.count('c', T0);
    expect(counts.count('a', T0)).toBe(3);
    expect(counts.count('b', T0)).toBe(1);
  });
});
