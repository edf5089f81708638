import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../support/local-stack.ts';

let local: TestStack;

beforeAll(async () => {
  // Two seconds before the 13:00 early close of the day after Thanksgiving 2024, at real speed.
  local = await startTestStack({ clock: { start: new Date('2024-11-29T17:59:58Z'), speed: 1 } });
});
afterAll(async () => {
  await local.stop();
});

describe('GET /market-status across the early close, over HTTP', () => {
  it('is open just before 13:00 New York and closed, with empty session strings, from 13:00', async () => {
    const before = await local.get('/market-status');
    expect(before.body).toMatchObject({
      is_open: true,
      session: { label: 'RTH', close_ts: '2024-11-29T13:00:00-05:00' },
    });

    await new Promise((resolve) => setTimeout(resolve, 2500));

    const after = await local.get('/market-status');
    expect(after.body).toMatchObject({
      market: 'stocks',
      timezone: 'America/New_York',
      is_open: false,
      session: { label: '', session_date: '', open_ts: '', close_ts: '' },
    });
    expect(after.body.now).toMatch(/^2024-11-29T13:00:0\d-05:00$/);
  });
});
