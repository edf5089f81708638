import * as z from 'zod/mini';
import { SETUPS_LIMIT } from '#domain/requests/limits';
import { cursorParam, type PagePosition } from '#domain/requests/page-cursor';
import { choiceListParam, clampedIntParam, symbolListParam } from '#domain/requests/query-params';
import { SHAPE_LABELS } from './candle-types.ts';
import type { SetupStore, StateStore } from './ports.ts';
import type { SetupRow } from './setups.ts';
import { TIMEFRAMES, type Timeframe, timeframeRank } from './timeframes.ts';

/** A setup row (docs/partner-guide.md#setup-row). */
export const setupRowSchema = z.object({
  symbol: z.string(),
  timeframe: z.enum(TIMEFRAMES),
  shape: z.enum(SHAPE_LABELS),
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
  cursor: cursorParam(['symbol', 'timeframe']),
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

/** Whether `row` sorts after the position a cursor names (symbol, then timeframe rank). */
function isAfter(row: SetupRow, position: PagePosition): boolean {
  if (row.symbol !== position.symbol) return row.symbol > (position.symbol as string);
  return timeframeRank(row.timeframe) > timeframeRank(position.timeframe as Timeframe);
}

/** Where a timeframe's rows start after a position: its symbol too when the timeframe sorts after its one. */
function startOf(timeframe: Timeframe, position: PagePosition | undefined) {
  if (position === undefined) return undefined;
  const inclusive = timeframeRank(timeframe) > timeframeRank(position.timeframe as Timeframe);
  return { symbol: position.symbol as string, inclusive };
}

/**
 * GET /setups/current (docs/partner-guide.md#get-setupscurrent). With `symbols`: their stored states
 * (BatchGetItem). Without: each requested timeframe's rows, a Query per timeframe in symbol order reading at
 * most `limit + 1` rows from the cursor's position, merged; never a Scan. The extra row tells whether a next
 * page exists (docs/partner-guide.md#paging-through-a-listing).
 */
export async function listCurrentSetups(
  query: CurrentSetupsQuery,
  ports: { readonly states: StateStore; readonly setups: SetupStore },
): Promise<{ body: { items: SetupRow[] }; next?: PagePosition }> {
  const timeframes = new Set<Timeframe>(query.timeframes ?? TIMEFRAMES);
  const position = query.cursor;
  const rows = query.symbols
    ? [...(await ports.states.getMany(query.symbols)).values()].flatMap((state) => state.setups)
    : (
        await Promise.all(
          [...timeframes].map((timeframe) =>
            ports.setups.list(timeframe, query.limit + 1, startOf(timeframe, position)),
          ),
        )
      ).flat();
  const read = rows
    .filter((row) => timeframes.has(row.timeframe))
    .filter((row) => position === undefined || isAfter(row, position))
    .sort(compareSetupRows);
  const items = read.slice(0, query.limit);
  const last = items.at(-1);
  return {
    body: { items },
    ...(read.length > query.limit && last
      ? { next: { symbol: last.symbol, timeframe: last.timeframe } }
      : {}),
  };
}
