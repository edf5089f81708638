import { getLatestPrices, latestPricesQuerySchema } from '#domain/prices';
import type { PriceStore } from '#ports/price-store';
import { priceStore } from '#runtime/ports';
import { restHandler } from '#runtime/rest-handler';

/** GET /prices/latest (spec 4.4). */
export const createHandler = (deps: { prices: () => PriceStore }) =>
  restHandler(latestPricesQuerySchema, ({ query }) => getLatestPrices(query, deps.prices()));

export const handler = createHandler({ prices: priceStore });
