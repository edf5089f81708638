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
  type WithNextCursor,
  type WithNextSinceId,
} from './client.ts';
export * from './contracts.ts';
export { type ClientErrorCode, MarketDataError } from './errors.ts';
export type { PollOptions } from './poller.ts';
export { DEFAULT_TIMEOUT_MS, type RetryOptions } from './rest.ts';
export {
  FINAL_CLOSE_CODES,
  MarketDataStream,
  StreamError,
  type StreamErrorCode,
  type StreamEvents,
  type StreamOptions,
  type WebSocketConstructor,
  type WebSocketLike,
} from './stream.ts';
export { CLIENT_VERSION, USER_AGENT } from './version.ts';
