import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import type { CredentialLookup } from '#domain/access/ports';
import { closeCodeFor } from '#domain/streaming/access';
import { MessageCounts } from '#domain/streaming/message-allowance';
import { errorReply, frameOf } from '#domain/streaming/messages';
import { nowMs } from '#runtime/clock';
import { instrumented } from '#runtime/lambda-handler';
import { logger } from '#runtime/logger';
import { credentialLookup } from '#runtime/ports/access';
import { clientConnections } from '#runtime/ports/client-connections';
import { universe } from '#runtime/ports/market-data';
import type { ServicePorts } from '#runtime/ports/service-ports';
import { connectionStore, messageRate, subscriptionStore } from '#runtime/ports/streaming';
import { connectionOf, OK, type WebSocketEvent } from '#runtime/websocket';
import { handleClientMessage, screenClientMessage } from '#use-cases/websocket-session';

type MessagePorts = Parameters<typeof handleClientMessage>[2] & Parameters<typeof screenClientMessage>[2];

/**
 * `$default`: a client operation (`subscribe`, `unsubscribe`, `ping`). Its replies go back over the
 * `@connections` API in order, so one message can answer with several (an error per refused topic, then
 * `subscribed`).
 */
export const createHandler =
  (deps: { ports: () => MessagePorts; credentials: () => CredentialLookup }) =>
  async (event: WebSocketEvent): Promise<APIGatewayProxyResultV2> => {
    const handshake = connectionOf(event);
    const ports = deps.ports();
    // Over the allowance in this instance's own count: refused before any read or write.
    const refused = await screenClientMessage(handshake.connectionId, event.body, ports);
    if (refused) {
      for (const reply of refused) await ports.clients.send(handshake.connectionId, frameOf(reply));
      return OK;
    }
    // The key's scopes as they are now (through the authorizer's short cache), not as at the handshake: a
    // scope removed since cannot be subscribed, and a withdrawn key subscribes nothing (its connection is
    // closed at its next push or heartbeat).
    const credential = await deps.credentials()(handshake.keyId);
    const withdrawn = closeCodeFor(credential) !== undefined;
    const connection = { ...handshake, scopes: credential && !withdrawn ? credential.key.scopes : [] };
    const replies = await handleClientMessage(connection, event.body, ports).catch((error: unknown) => {
      // The client gets the service's own error shape, not API Gateway's "Internal server error".
      logger.error('a client message failed', { connectionId: connection.connectionId, error });
      return [errorReply('internal_error', 'internal error')];
    });
    for (const reply of replies) {
      if ((await ports.clients.send(connection.connectionId, frameOf(reply))) === 'gone') break;
    }
    logger.debug('answered a client message', {
      connectionId: connection.connectionId,
      replies: replies.length,
    });
    return OK;
  };

/**
 * `$default` on the service's ports (functions/runtime/ports/service-ports.ts): on AWS, or a local stack's. It
 * keeps its own count of each connection's messages (docs/websocket.md#limits), which lives as long as the
 * instance (or the stack), across invocations.
 */
export const handlerOn = (
  p: Pick<
    ServicePorts,
    | 'connectionStore'
    | 'subscriptionStore'
    | 'clientConnections'
    | 'universe'
    | 'messageRate'
    | 'credentialLookup'
    | 'nowMs'
  >,
) => {
  const messageCounts = new MessageCounts();
  return instrumented(
    createHandler({
      ports: (): MessagePorts => ({
        connections: p.connectionStore(),
        subscriptions: p.subscriptionStore(),
        clients: p.clientConnections(),
        trackedSymbols: p.universe,
        messageRate: p.messageRate(),
        messageCounts,
        nowMs: p.nowMs,
      }),
      credentials: p.credentialLookup,
    }),
  );
};

export const handler = handlerOn({
  connectionStore,
  subscriptionStore,
  clientConnections,
  universe,
  messageRate,
  credentialLookup,
  nowMs,
});
