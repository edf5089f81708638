import * as z from 'zod/mini';
import { marketStatus, marketStatusSchema } from '#domain/calendar/market-status';
import { nowMs } from '#runtime/clock';
import { restHandler } from '#runtime/rest-handler';

/** The route's contract: query and response schemas (the OpenAPI document is built from these). */
export const contract = {
  summary: 'Market open/closed status',
  query: z.object({}),
  response: marketStatusSchema,
  errors: [],
} as const;

/** GET /market-status (docs/partner-guide.md#market-status). */
export const createHandler = (deps: { nowMs: () => number }) =>
  restHandler(contract, async () => marketStatus(new Date(deps.nowMs())));

export const handler = createHandler({ nowMs });
