import { describe, expect, it } from 'vitest';
import { createHandler } from '#handlers/rest/get-market-status';
import { bodyOf, context, restEvent } from '../../../support/events.ts';

const statusAt = async (instant: string) => {
  const handler = createHandler({ nowMs: () => new Date(instant).getTime() });
  const result = await handler(restEvent({ resource: '/api/market/v1/market-status' }), context());
  expect(result.statusCode).toBe(200);
  return bodyOf(result);
};

describe('GET /market-status handler', () => {
  it('reports the early-close session of the day after Thanksgiving from the injected clock', async () => {
    expect(await statusAt('2024-11-29T15:00:00Z')).toEqual({
      market: 'stocks',
      timezone: 'America/New_York',
      is_open: true,
      session: {
        label: 'RTH',
        session_date: '2024-11-29',
        open_ts: '2024-11-29T09:30:00-05:00',
        close_ts: '2024-11-29T13:00:00-05:00',
      },
      now: '2024-11-29T10:00:00-05:00',
    });
  });

  it('reports closed with empty session strings on a Saturday', async () => {
    expect(await statusAt('2024-11-30T15:00:00Z')).toEqual({
      market: 'stocks',
      timezone: 'America/New_York',
      is_open: false,
      session: { label: '', session_date: '', open_ts: '', close_ts: '' },
      now: '2024-11-30T10:00:00-05:00',
    });
  });
});
