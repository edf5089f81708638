import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import { instrumented } from '#runtime/lambda-handler';
import { logger } from '#runtime/logger';
import type { ServicePorts } from '#runtime/ports/service-ports';
import { connectionStore, subscriptionStore } from '#runtime/ports/streaming';
import { connectionOf, OK, type WebSocketEvent } from '#runtime/websocket';
import { closeConnection, type SessionPorts } from '#use-cases/websocket-session';

/**
 * `$disconnect`: the connection's subscriptions go; the account's row goes only if it still names this
 * connection, so the disconnect of an evicted connection never removes its successor
 * (docs/architecture.md#websocket-api-gateway-websocket-api-with-mapped-close-codes).
 */
export const createHandler =
  (deps: { ports: () => Pick<SessionPorts, 'connections' | 'subscriptions'> }) =>
  async (event: WebSocketEvent): Promise<APIGatewayProxyResultV2> => {
    const connection = connectionOf(event);
    await closeConnection(connection, deps.ports());
    logger.info('disconnected', { accountId: connection.accountId, connectionId: connection.connectionId });
    return OK;
  };

/** `$disconnect` on the service's ports (functions/runtime/ports/service-ports.ts): on AWS, or a local stack's. */
export const handlerOn = (p: Pick<ServicePorts, 'connectionStore' | 'subscriptionStore'>) =>
  instrumented(
    createHandler({
      ports: () => ({ connections: p.connectionStore(), subscriptions: p.subscriptionStore() }),
    }),
  );

export const handler = handlerOn({ connectionStore, subscriptionStore });
