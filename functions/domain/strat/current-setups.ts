import * as z from 'zod';
import { SETUPS_LIMIT } from '#domain/requests/limits';
import { choiceListParam, clampedIntParam, symbolListParam } from '#domain/requests/query-params';
import type { SetupStore, StateStore } from './ports.ts';
import type { SetupRow } from './setups.ts';
import { TIMEFRAMES, type Timeframe, timeframeRank } from './timeframes.ts';

/** Spec 2.5. */
export const setupRowSchema = z.object({
  symbol: z.string(),
  timeframe: z.enum(TIMEFRAMES),
  shape: z.string(),
  in_force: z.boolean(),
  p3: z.boolean(),
  pmg: z.number().nullable(),
  continuation: z.boolean(),
  sector: z.string(),
});

/** Spec 4.7 response. */
export const currentSetupsSchema = z.object({ items: z.array(setupRowSchema) });

/** Spec 4.7 and strat-rules section 8. */
export const currentSetupsQuerySchema = z.object({
  symbols: symbolListParam(),
  timeframes: choiceListParam(TIMEFRAMES),
  limit: clampedIntParam(SETUPS_LIMIT),
});

export type CurrentSetupsQuery = z.output<typeof currentSetupsQuerySchema>;

/** Rows ordered by symbol, then timeframe in 15, 30, 60, 4H, D, W, M, Q, Y order (spec 4.7). */
export function compareSetupRows(a: SetupRow, b: SetupRow): number {
  if (a.symbol !== b.symbol) return a.symbol < b.symbol ? -1 : 1;
  return timeframeRank(a.timeframe) - timeframeRank(b.timeframe);
}

/**
 * Spec 4.7. With `symbols`: their stored states (BatchGetItem). Without: each requested timeframe's rows, a
 * Query per timeframe in symbol order reading at most `limit` rows, merged; never a Scan.
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
