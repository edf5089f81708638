import { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import { ApiGatewayClientConnections } from '#adapters/api-gateway/client-connections';
import { CALLBACK_URL_ENV } from '#contracts/websocket';
import { environment } from '../environment.ts';
import { memo } from '../memo.ts';
import { instrumentedClient } from '../sdk-clients.ts';

/** The `@connections` endpoint: the WebSocket stage's callback URL, which the CDK sets. */
export const clientConnections = memo(() => {
  const endpoint = environment()[CALLBACK_URL_ENV];
  if (!endpoint)
    throw new Error(`environment variable ${CALLBACK_URL_ENV} (the @connections endpoint) is not set`);
  return new ApiGatewayClientConnections(instrumentedClient(new ApiGatewayManagementApiClient({ endpoint })));
});
