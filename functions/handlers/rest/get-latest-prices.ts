import { getLatestPrices } from '#domain/market-data/latest-prices';
import type { PriceStore } from '#domain/market-data/ports';
import { latestPricesQuerySchema, latestPricesSchema } from '#domain/market-data/prices';
import { priceStore } from '#runtime/ports/market-data';
import { restHandler } from '#runtime/rest-handler';

/** The route's contract: query and response schemas (the OpenAPI document is built from these). */
export const contract = {
  summary: 'Latest trade prices',
  query: latestPricesQuerySchema,
  response: latestPricesSchema,
  errors: ['missing_symbols'],
} as const;

/** GET /prices/latest (docs/partner-guide.md#latest-prices). */
export const createHandler = (deps: { prices: () => PriceStore }) =>
  restHandler(contract, ({ query }) => getLatestPrices(query, deps.prices()));

export const handler = createHandler({ prices: priceStore });
