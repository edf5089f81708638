import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../support/local-stack.ts';

let local: TestStack;

beforeAll(async () => {
  // The local stack's virtual clock: 10:00 New York on the day after Thanksgiving 2024 (closes at 13:00).
  local = await startTestStack({ clock: { start: new Date('2024-11-29T15:00:00Z'), speed: 1 } });
});
afterAll(async () => {
  await local.stop();
});

describe('GET /market-status over HTTP', () => {
  it('reports the early-close session open, in New York time, from the service clock', async () => {
    const response = await local.get('/market-status');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      market: 'stocks',
      timezone: 'America/New_York',
      is_open: true,
      session: {
        label: 'RTH',
        session_date: '2024-11-29',
        open_ts: '2024-11-29T09:30:00-05:00',
        close_ts: '2024-11-29T13:00:00-05:00',
      },
    });
    expect(response.body.now).toMatch(/^2024-11-29T10:00:\d\d-05:00$/);
  });

  it('ignores query parameters it does not define', async () => {
    expect((await local.get('/market-status?verbose=1')).status).toBe(200);
  });
});
