import { describe, expect, it } from 'vitest';
import { REST_THROTTLE, REST_THROTTLE_VOLATILE } from '#contracts/throttling';
import { restThroughputAt } from '#domain/access/throughput';

const at = (iso: string) => Date.parse(iso);

describe('restThroughputAt (docs/partner-guide.md#limits-and-throttling)', () => {
  it.each([
    ['before the open', '2024-11-26T14:29:59Z', 'base'],
    ['at the open', '2024-11-26T14:30:00Z', 'session_open'],
    ['29 minutes in', '2024-11-26T14:59:59Z', 'session_open'],
    ['30 minutes in', '2024-11-26T15:00:00Z', 'base'],
    ['midday', '2024-11-26T17:00:00Z', 'base'],
    ['the last half hour', '2024-11-26T20:30:00Z', 'session_close'],
    ['the last second', '2024-11-26T20:59:59Z', 'session_close'],
    ['the close', '2024-11-26T21:00:00Z', 'base'],
    ['Thanksgiving', '2024-11-28T15:00:00Z', 'base'],
    ['the early close’s last half hour (13:00 ET)', '2024-11-29T17:45:00Z', 'session_close'],
    ['after the early close', '2024-11-29T18:15:00Z', 'base'],
    ['the open after the spring DST change (13:30Z)', '2024-03-11T13:45:00Z', 'session_open'],
    ['the hour before it, still pre-market', '2024-03-11T12:45:00Z', 'base'],
    ['a Saturday', '2024-11-30T15:00:00Z', 'base'],
  ])('%s: %s', (_case, iso, reason) => {
    const throughput = restThroughputAt(at(iso));
    expect(throughput.reason).toBe(reason);
    const figures = reason === 'base' ? REST_THROTTLE : REST_THROTTLE_VOLATILE;
    expect(throughput).toMatchObject({ rateLimit: figures.rateLimit, burstLimit: figures.burstLimit });
  });

  it('raises the limits for 15 minutes after a simultaneous break, even outside the session', () => {
    const now = at('2024-11-26T23:00:00Z');
    expect(restThroughputAt(now, now - 14 * 60_000)).toMatchObject({
      ...REST_THROTTLE_VOLATILE,
      reason: 'simultaneous_breaks',
    });
    expect(restThroughputAt(now, now - 15 * 60_000).reason).toBe('base');
  });
});
