/**
 * The console's one way to the service: the agreed client API of `@market-data-alerts/client`. Until the
 * library is in the repository, its calls come from interim-client.ts; then this import names
 * `@market-data-alerts/client` (or clients/typescript/src/index.ts) and nothing else changes.
 */

export type { Channel, MarketDataClient, MarketDataStream } from './interim-client.ts';
export { createClient, MarketDataError } from './interim-client.ts';
