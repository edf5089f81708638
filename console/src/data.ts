/**
 * The console's one way to the service: the client library partners use (clients/typescript,
 * `@market-data-alerts/client`), bundled into the page. In the browser its stream offers the key as a
 * WebSocket subprotocol (docs/websocket.md#connecting-from-a-browser).
 */
export {
  createClient,
  type MarketDataClient,
  MarketDataError,
  type MarketDataStream,
} from '../../clients/typescript/src/index.ts';
