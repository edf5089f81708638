import pLimit from 'p-limit';
import { FAN_OUT } from '#contracts/websocket';
import { HEARTBEAT_MESSAGE } from '#domain/streaming/messages';
import { closeConnection, type SessionPorts } from '#domain/streaming/session';
import { logger } from '#runtime/logger';
import { clientConnections, connectionStore, subscriptionStore } from '#runtime/ports';

/**
 * The heartbeat (an EventBridge schedule on AWS, a timer locally): `{"op":"heartbeat"}` to every
 * connection, so API Gateway's 10-minute idle timeout never drops a quiet partner (strat-rules section 9).
 * A connection found gone is cleaned up.
 */
export const createHandler =
  (deps: { ports: () => SessionPorts }) => async (): Promise<{ sent: number; gone: number }> => {
    const ports = deps.ports();
    const limit = pLimit(FAN_OUT.postConcurrency);
    let sent = 0;
    let gone = 0;
    for await (const page of ports.connections.list()) {
      await Promise.all(
        page.map((connection) =>
          limit(async () => {
            if ((await ports.clients.send(connection.connectionId, HEARTBEAT_MESSAGE)) === 'sent') {
              sent += 1;
              return;
            }
            gone += 1;
            await closeConnection(connection, ports);
          }),
        ),
      );
    }
    logger.info('sent heartbeats', { sent, gone });
    return { sent, gone };
  };

export const handler = createHandler({
  ports: () => ({
    connections: connectionStore(),
    subscriptions: subscriptionStore(),
    clients: clientConnections(),
  }),
});
