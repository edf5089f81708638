import { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import { ApiGatewayClientConnections } from '#adapters/api-gateway/client-connections';
import { CALLBACK_URL_ENV } from '#contracts/websocket';
import { environment } from '../environment.ts';
import { memo } from '../memo.ts';
import { instrumentedClient, SDK_CALL_TIMEOUTS } from '../sdk-clients.ts';
import type { SdkClientSettings } from './context.ts';

/** The `@connections` port over the API Gateway management API at `settings().endpoint`, made on first use. */
export function clientConnectionsAt(settings: () => SdkClientSettings & { readonly endpoint: string }) {
  return memo(
    () =>
      new ApiGatewayClientConnections(
        instrumentedClient(
          new ApiGatewayManagementApiClient({ requestHandler: SDK_CALL_TIMEOUTS, ...settings() }),
        ),
      ),
  );
}

/** The `@connections` endpoint: the WebSocket stage's callback URL, which the CDK sets. */
export const clientConnections = clientConnectionsAt(() => {
  const endpoint = environment()[CALLBACK_URL_ENV];
  if (!endpoint)
    throw new Error(`environment variable ${CALLBACK_URL_ENV} (the @connections endpoint) is not set`);
  return { endpoint };
});
