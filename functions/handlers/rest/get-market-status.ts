import { z } from 'zod';
import type { Clock } from '#domain/clock';
import { marketStatus } from '#domain/market-status';
import { clock } from '#runtime/ports';
import { restHandler } from '#runtime/rest-handler';

/** GET /market-status (spec 4.3). */
export const createHandler = (deps: { clock: () => Clock }) =>
  restHandler(z.object({}), async () => marketStatus(deps.clock()()));

export const handler = createHandler({ clock });
