/**
 * `@market-data-alerts/client`: the typed client of the Market Data Alerts Partner Service
 * (clients/typescript/README.md). Runs in Node 22+ and in browsers.
 */
export { type BackoffOptions, backoffDelay } from './backoff.ts';
export {
  type ClientOptions,
  createClient,
  defaultWsUrl,
  type MarketDataClient,
  type RequestOptions,
} from './client.ts';
export * from './contracts.ts';
export { MarketDataError } from './errors.ts';
export type { PollOptions } from './poller.ts';
export type { RetryOptions } from './rest.ts';
export {
  FINAL_CLOSE_CODES,
  MarketDataStream,
  StreamError,
  type StreamEvents,
  type StreamOptions,
  type WebSocketConstructor,
  type WebSocketLike,
} from './stream.ts';
