import * as z from 'zod/mini';
import { SETUPS_LIMIT } from '#domain/requests/limits';
import { choiceListParam, clampedIntParam, symbolListParam } from '#domain/requests/query-params';
import type { SetupStore, StateStore } from './ports.ts';
import type { SetupRow } from './setups.ts';
import { TIMEFRAMES, type Timeframe, timeframeRank } from './timeframes.ts';

/** A setup row (docs/partner-guide.md#setup-row). */
export const setupRowSchema = z.object({
  symbol: z.string(),
  timeframe: z.enum(TIMEFRAMES),
  shape: z.string(),
  in_force: z.boolean(),
  p3: z.boolean(),
  pmg: z.nullable(z.number()),
  continuation: z.boolean(),
  sector: z.string(),
});

/** The response of GET /setups/current (docs/partner-guide.md#get-setupscurrent). */
export const currentSetupsSchema = z.object({ items: z.array(setupRowSchema) });

/**
 * The query of GET /setups/current (docs/partner-guide.md#get-setupscurrent; limits:
 * docs/partner-guide.md#limits-and-throttling).
 */
export const currentSetupsQuerySchema = z.object({
  symbols: symbolListParam(),
  timeframes: choiceListParam(TIMEFRAMES),
  limit: clampedIntParam(SETUPS_LIMIT),
});

export type CurrentSetupsQuery = z.output<typeof currentSetupsQuerySchema>;

/**
 * Rows ordered by symbol, then timeframe in 15, 30, 60, 4H, D, W, M, Q, Y order
 * (docs/partner-guide.md#get-setupscurrent).
 */
export function compareSetupRows(a: SetupRow, b: SetupRow): number {
  if (a.symbol !== b.symbol) return a.symbol < b.symbol ? -1 : 1;
  return timeframeRank(a.timeframe) - timeframeRank(b.timeframe);
}

/**
 * GET /setups/current (docs/partner-guide.md#get-setupscurrent). With `symbols`: their stored states
 * (BatchGetItem). Without: each requested timeframe's rows, a Query per timeframe in symbol order reading at
 * most `limit` rows, merged; never a Scan.
 */
export async function listCurrentSetups(
  query: CurrentSetupsQuery,
  ports: { readonly states: StateStore; readonly setups: SetupStore },
): Promise<{ items: SetupRow[] }> {
  const timeframes = new Set<Timeframe>(query.timeframes ?? TIMEFRAMES);
  const rows = query.symbols
    ? [...(await ports.states.getMany(query.symbols)).values()].flatMap((state) => state.setups)
    : (
        await Promise.all([...timeframes].map((timeframe) => ports.setups.list(timeframe, query.limit)))
      ).flat();
  return {
    items: rows
      .filter((row) => timeframes.has(row.timeframe))
      .sort(compareSetupRows)
      .slice(0, query.limit),
  };
}
