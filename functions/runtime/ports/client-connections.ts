import { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import { ApiGatewayClientConnections } from '#adapters/api-gateway/client-connections';
import { INGEST_WINDOWS } from '#contracts/ingestion';
import { CALLBACK_URL_ENV } from '#contracts/websocket';
import { environment } from '../environment.ts';
import { memo } from '../memo.ts';
import { instrumentedClient, SDK_CALL_TIMEOUTS, socketsPerHost } from '../sdk-clients.ts';
import type { SdkClientSettings } from './context.ts';

/**
 * The `@connections` port over the API Gateway management API at `settings().endpoint`, made on first use.
 * `sockets`: the posts it has in flight at most (the SDK's default is 50; more wait for a socket).
 */
export function clientConnectionsAt(
  settings: () => SdkClientSettings & { readonly endpoint: string },
  sockets?: number,
) {
  const agents = sockets === undefined ? {} : socketsPerHost(sockets);
  return memo(
    () =>
      new ApiGatewayClientConnections(
        instrumentedClient(
          new ApiGatewayManagementApiClient({
            requestHandler: { ...SDK_CALL_TIMEOUTS, ...agents },
            ...settings(),
          }),
        ),
      ),
  );
}

/** The `@connections` endpoint: the WebSocket stage's callback URL, which the CDK sets. */
function callbackEndpoint() {
  const endpoint = environment()[CALLBACK_URL_ENV];
  if (!endpoint)
    throw new Error(`environment variable ${CALLBACK_URL_ENV} (the @connections endpoint) is not set`);
  return { endpoint };
}

/** The functions' `@connections` port. */
export const clientConnections = clientConnectionsAt(callbackEndpoint);

/**
 * A post worker's (functions/containers/quote-post-worker.ts): sockets for a whole window's posts in flight
 * (INGEST_WINDOWS.postConcurrency), whichever worker they are handed to.
 */
export const postWorkerConnections = clientConnectionsAt(callbackEndpoint, INGEST_WINDOWS.postConcurrency);
