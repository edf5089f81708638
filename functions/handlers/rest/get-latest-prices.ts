import { getLatestPrices, latestPricesQuerySchema, latestPricesSchema } from '#domain/prices';
import type { PriceStore } from '#ports/price-store';
import { priceStore } from '#runtime/ports';
import { restHandler } from '#runtime/rest-handler';

/** The route's contract: query and response schemas (the OpenAPI document is built from these). */
export const contract = {
  summary: 'Latest trade prices',
  query: latestPricesQuerySchema,
  response: latestPricesSchema,
};

/** GET /prices/latest (spec 4.4). */
export const createHandler = (deps: { prices: () => PriceStore }) =>
  restHandler(contract, ({ query }) => getLatestPrices(query, deps.prices()));

export const handler = createHandler({ prices: priceStore });
