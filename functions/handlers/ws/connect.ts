import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import { selectedSubprotocol } from '#domain/streaming/subprotocol';
import { instrumented } from '#runtime/lambda-handler';
import { logger } from '#runtime/logger';
import { recordMetric } from '#runtime/metrics';
import { clientConnections } from '#runtime/ports/client-connections';
import type { ServicePorts } from '#runtime/ports/service-ports';
import { connectionStore } from '#runtime/ports/streaming';
import { connectionOf, OK, type WebSocketEvent } from '#runtime/websocket';
import { openConnection, type SessionPorts } from '#use-cases/websocket-session';

/**
 * `$connect`, after the authorizer allowed the key (`ws:connect` and an active entitlement): the connection
 * becomes its account's one connection; the one it replaces is closed with 4409
 * (docs/websocket.md#one-connection-per-account). The answer selects the subprotocol `market-data.v1` when the
 * handshake offered it (docs/websocket.md#connecting-from-a-browser): API Gateway passes the header on to the
 * client, and a browser that offered subprotocols refuses an upgrade that selects none.
 */
export const createHandler =
  (deps: { ports: () => Pick<SessionPorts, 'connections' | 'clients'> }) =>
  async (event: WebSocketEvent): Promise<APIGatewayProxyResultV2> => {
    const connection = connectionOf(event);
    const replaced = await openConnection(connection, deps.ports());
    recordMetric('connects', 1);
    if (replaced) recordMetric('evictions', 1);
    logger.info('connected', { accountId: connection.accountId, connectionId: connection.connectionId });
    const subprotocol = selectedSubprotocol(event.headers);
    return subprotocol ? { statusCode: 200, headers: { 'Sec-WebSocket-Protocol': subprotocol } } : OK;
  };

/** `$connect` on the service's ports (functions/runtime/ports/service-ports.ts): on AWS, or a local stack's. */
export const handlerOn = (p: Pick<ServicePorts, 'connectionStore' | 'clientConnections'>) =>
  instrumented(
    createHandler({ ports: () => ({ connections: p.connectionStore(), clients: p.clientConnections() }) }),
  );

export const handler = handlerOn({ connectionStore, clientConnections });
