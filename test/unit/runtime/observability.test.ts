import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { CLIENT_ERROR_LOG } from '#contracts/metrics';
import { UnknownSymbolError } from '#domain/requests/errors';
import type { SimultaneousBreakBody } from '#domain/strat/alerts';
import { createHandler as createClockTick } from '#handlers/schedule/clock-tick';
import { logger } from '#runtime/logger';
import type { MetricPoint } from '#runtime/metric-points';
import { restHandler } from '#runtime/rest-handler';
import { observeMetrics } from '#scripts/local/metric-points';
import { context } from '../../support/events.ts';
import {
  InMemoryEventFeed,
  InMemoryLedgerStore,
  InMemorySetupStore,
  InMemoryStateStore,
} from '../../support/fakes.ts';

async function pointsOf(run: () => Promise<unknown>): Promise<MetricPoint[]> {
  const points: MetricPoint[] = [];
  const stop = observeMetrics((point) => points.push(point));
  try {
    await run();
  } finally {
    stop();
  }
  return points;
}

describe('REST handlers’ metrics', () => {
  it('count a 4xx answer by its error code, with the envelope unchanged', async () => {
    const handler = restHandler(
      { summary: 's', query: z.object({}), response: z.object({}), errors: [] },
      async () => {
        throw new UnknownSymbolError('NOPE');
      },
    );
    let status = 0;
    const points = await pointsOf(async () => {
      status = (
        await handler(
          { queryStringParameters: null, pathParameters: null } as unknown as APIGatewayProxyEvent,
          context(),
        )
      ).statusCode;
    });
    expect(status).toBe(404);
    expect(points).toContainEqual({ id: 'clientErrors', value: 1, dimensionValue: 'unknown_symbol' });
  });

  it('write each 4xx as the log line the ClientErrors metric filter counts', async () => {
    const handler = restHandler(
      { summary: 's', query: z.object({}), response: z.object({}), errors: [] },
      async () => {
        throw new UnknownSymbolError('NOPE');
      },
    );
    const info = vi.spyOn(logger, 'info');
    try {
      await handler(
        { queryStringParameters: null, pathParameters: null } as unknown as APIGatewayProxyEvent,
        context(),
      );
      expect(info).toHaveBeenCalledWith(CLIENT_ERROR_LOG.message, {
        [CLIENT_ERROR_LOG.codeField]: 'unknown_symbol',
      });
    } finally {
      info.mockRestore();
    }
  });
});

describe('the clock tick’s MarketOpen (the feed-silence alarm reads it)', () => {
  const tick = (iso: string) =>
    createClockTick({
      universe: async () => new Map(),
      ledgers: () => new InMemoryLedgerStore(),
      stateSync: () => ({ states: new InMemoryStateStore(), setups: new InMemorySetupStore() }),
      nowMs: () => Date.parse(iso),
      throughput: () => ({
        breaks: new InMemoryEventFeed<SimultaneousBreakBody>(),
        target: { current: async () => undefined, apply: async () => {} },
      }),
    });

  it.each([
    ['in the session', '2024-11-26T15:00:00Z', 1],
    ['after the close', '2024-11-26T21:00:00Z', 0],
    ['on Thanksgiving', '2024-11-28T15:00:00Z', 0],
    ['after the early close the day after', '2024-11-29T18:30:00Z', 0],
  ])('is %s: %d', async (_case, iso, open) => {
    const points = await pointsOf(() => tick(iso)());
    expect(points).toContainEqual({ id: 'marketOpen', value: open });
  });
});
