/**
 * The shapes the console reads, taken (types only, nothing bundled) from the schemas the service answers
 * with, so the console and the API cannot drift.
 */
import type * as z from 'zod';
import type { marketStatusSchema } from '#domain/calendar/market-status';
import type { Candles } from '#domain/market-data/candles';
import type { Instrument } from '#domain/market-data/instruments';
import type { PriceItem } from '#domain/market-data/prices';
import type { InForceAlert, SimultaneousBreak } from '#domain/strat/alerts';
import type { setupRowSchema } from '#domain/strat/current-setups';
import type { StateSnapshot } from '#domain/strat/state-snapshot';

export type { Candles, InForceAlert, Instrument, PriceItem, SimultaneousBreak, StateSnapshot };
export type MarketStatus = z.infer<typeof marketStatusSchema>;
export type SetupRow = z.infer<typeof setupRowSchema>;
export type Bar = Candles['bars'][number];
